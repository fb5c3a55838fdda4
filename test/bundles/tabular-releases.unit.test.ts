// The database and CSV files of a bundle with a release history made the way a maintainer
// makes it (a figure changed, a tree added, a cutter renamed; then a storage removed and a
// gift's pair changed): the changes table says what GET /api/releases says, field by field,
// and a renamed record keeps its former name among its aliases, as the API finds it.
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { loadContent } from '../../src/build/content.ts';
import { loadReleases } from '../../src/build/releases.ts';
import { csvPath, SQLITE_FILE } from '../../src/contract/bundle-layout.ts';
import { makeHistory, runRelease, type History } from '../support/release-history.ts';
import {
  bundleOf,
  openDatabase,
  parseCsv,
  releasesOf,
  rowsOf,
  type MadeBundle,
  type OpenedDatabase,
} from '../support/tabular.ts';

let history: History;
let bundle: MadeBundle;
let database: OpenedDatabase;
beforeAll(async () => {
  history = makeHistory((dir) => readdirSync(dir).sort().join('\n'));
  const { project } = history;
  rmSync(join(project.contentDir, 'storages', 'crate.yaml'));
  project.patch('gifts/small.yaml', { money: [100, 250] });
  const released = runRelease(project.root, 'The crate is gone; the small gift gives more money.');
  if (released.status !== 0) throw new Error(released.output);
  bundle = await bundleOf(loadContent(project.contentDir), loadReleases(project.root));
  database = openDatabase(bundle.files.get(SQLITE_FILE) ?? new Uint8Array());
}, 180_000);
afterAll(() => {
  database?.close();
  history?.project.remove();
});

test('releases and changes hold what GET /api/releases answers: added, removed, changed field by field', async () => {
  const answered = await bundle.client.releases();
  expect(answered.length).toBe(5);
  expect(JSON.stringify(releasesOf(database.db))).toBe(JSON.stringify(answered));
  const changed = rowsOf(
    database.db,
    `SELECT "kind", "field", "from_value", "to_value" FROM "changes" WHERE "change" = 'changed'`,
  );
  expect(changed).toEqual(
    expect.arrayContaining([
      { kind: 'trees', field: 'logValue', from_value: 6, to_value: 7 },
      { kind: 'cutters', field: 'name', from_value: 'Knife', to_value: 'Blade' },
      { kind: 'gifts', field: 'money', from_value: '[100,200]', to_value: '[100,250]' },
    ]),
  );
  expect(rowsOf(database.db, `SELECT "kind", "slug", "name" FROM "changes" WHERE "change" = 'removed'`)).toEqual([
    { kind: 'storages', slug: 'crate', name: 'Crate' },
  ]);
});

test('a renamed record keeps the name it was released under among its aliases, in database and CSV', async () => {
  const aliases = rowsOf(
    database.db,
    `SELECT "alias" FROM "aliases" WHERE "kind" = 'cutters' AND "slug" = 'knife' ORDER BY "position"`,
  );
  expect(aliases.map((row) => row.alias)).toEqual(['Bread Knife', 'Knife']);
  for (const name of ['Knife', 'Bread Knife'])
    expect((await bundle.client.cutters(name)).map((cutter) => cutter.name)).toEqual(['Blade']);
  const [header = [], ...rows] = parseCsv(new TextDecoder().decode(bundle.files.get(csvPath('cutters'))));
  const knife = rows.find((row) => row[header.indexOf('slug')] === 'knife') ?? [];
  expect([knife[header.indexOf('name')], knife[header.indexOf('aliases')]]).toEqual([
    'Blade',
    '["Bread Knife","Knife"]',
  ]);
});
