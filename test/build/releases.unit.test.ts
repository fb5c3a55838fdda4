// The release rules of the build, one test per rule, on temp copies of the minimal content:
// what counts as a change, how former names stay findable, and which release files are refused.
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { changesBetween } from '../../src/build/changes.ts';
import { loadContent } from '../../src/build/content.ts';
import { makeRelease } from '../../src/build/make-release.ts';
import { loadReleases, releaseDigest, withFormerNames } from '../../src/build/releases.ts';
import type { ReleaseFile } from '../../src/schema/releases.ts';
import { minimalProject, type TempProject } from '../fixtures/minimal-content.ts';

let project: TempProject;
beforeEach(() => {
  project = minimalProject();
});
afterEach(() => project.remove());

const content = () => loadContent(project.contentDir);
const DAY = new Date('2026-12-01T10:00:00Z');

test('records are matched by kind and slug: a rename is a changed name, not a removal and an addition', () => {
  const before = content();
  project.patch('cutters/knife.yaml', { name: 'Blade', cost: 1200 });
  expect(changesBetween(before, content())).toEqual({
    added: [],
    removed: [],
    changed: [
      {
        kind: 'cutters',
        name: 'Blade',
        level: 2,
        slug: 'knife',
        fields: { name: { from: 'Knife', to: 'Blade' }, cost: { from: 1120, to: 1200 } },
      },
    ],
  });
});

test('a field given or dropped changes from or to null; a removed record is named as it was', () => {
  const before = content();
  project.patch('storages/chest.yaml', { aliases: ['Box'] });
  project.patch('cutters/knife.yaml', { aliases: undefined });
  renameSync(join(project.contentDir, 'plots/level-2.yaml'), join(project.root, 'gone.yaml'));
  const changes = changesBetween(before, content());
  expect(changes.changed.map(({ slug, fields }) => ({ slug, fields }))).toEqual([
    { slug: 'knife', fields: { aliases: { from: ['Bread Knife'], to: null } } },
    { slug: 'chest', fields: { aliases: { from: null, to: ['Box'] } } },
  ]);
  expect(changes.removed).toEqual([{ kind: 'plots', level: 2, slug: 'level-2' }]);
});

test('the first release lists every record as added', () => {
  const changes = changesBetween(undefined, content());
  expect(changes.added).toHaveLength(12);
  expect(changes.changed).toEqual([]);
});

test('a former name becomes an alias of the renamed record, unless a record holds that name now', () => {
  const first = content();
  project.patch('cutters/knife.yaml', { name: 'Blade' });
  project.patch('cutters/fist.yaml', { name: 'Punch' });
  project.writeRaw('cutters/new-fist.yaml', 'level: 3\nname: Fist\ncooldown: 50\ncost: 5000\nefficiency: [30, 40]\n');
  const served = withFormerNames(content(), [first]);
  const cutter = (slug: string) => served.entries.cutters.find((entry) => entry.slug === slug);
  expect(cutter('knife')?.keys).toEqual(['blade', 'breadknife', 'knife']);
  expect(cutter('fist')?.keys).toEqual(['punch']);
  expect(cutter('new-fist')?.keys).toEqual(['fist']);
});

test('npm run release numbers later releases of the same UTC day -2, -3', () => {
  expect(makeRelease(project.root, 'One.', { now: DAY }).id).toBe('2026-12-01');
  project.patch('trees/oak-tree.yaml', { logValue: 7 });
  expect(makeRelease(project.root, 'Two.', { now: DAY }).id).toBe('2026-12-01-2');
  project.patch('trees/oak-tree.yaml', { logValue: 8 });
  expect(makeRelease(project.root, 'Three.', { now: new Date('2026-12-02T00:00:01Z') }).id).toBe('2026-12-02');
  expect(loadReleases(project.root).map((release) => release.id)).toEqual(['2026-12-01', '2026-12-01-2', '2026-12-02']);
});

test('npm run release needs notes, and refuses a clock before the latest release', () => {
  expect(() => makeRelease(project.root, '  ', { now: DAY })).toThrow('Say what changed');
  makeRelease(project.root, 'One.', { now: DAY });
  project.patch('trees/oak-tree.yaml', { logValue: 7 });
  expect(() => makeRelease(project.root, 'Two.', { now: new Date('2026-11-30T12:00:00Z') })).toThrow(
    'dated after today',
  );
});

test('a release file whose name is not its id, or that is no release at all, fails, naming it', () => {
  makeRelease(project.root, 'One.', { now: DAY });
  const releases = join(project.root, 'releases');
  renameSync(join(releases, '2026-12-01.json'), join(releases, '2026-12-09.json'));
  writeFileSync(join(releases, 'notes.txt'), 'hello');
  expect(() => loadReleases(project.root)).toThrow(
    new RegExp(
      /releases\/2026-12-09\.json: id: the file of release 2026-12-01 is 2026-12-01\.json/.source +
        /[\s\S]*releases\/notes\.txt: not a release file/.source,
    ),
  );
});

test('a release whose records the schemas refuse fails, naming the file and the record', () => {
  makeRelease(project.root, 'One.', { now: DAY });
  const path = join(project.root, 'releases/2026-12-01.json');
  const release = JSON.parse(readFileSync(path, 'utf8')) as ReleaseFile;
  const oak = release.records.trees.find((record) => record.slug === 'oak-tree');
  if (oak) oak.data['growthTime'] = '60';
  const { sha256: _sha256, ...data } = release;
  writeFileSync(path, JSON.stringify({ ...data, sha256: releaseDigest(data) }));
  expect(() => loadReleases(project.root)).toThrow('releases/2026-12-01.json: trees/oak-tree: growthTime: expected');
});
