// A temp project with a release history made the way a maintainer makes it: the minimal
// content, released; a figure changed, released; a tree added, released; a cutter renamed,
// released; then one edit left unreleased. Built into a temp dist/ by the real build.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { minimalProject, type TempProject } from '../fixtures/minimal-content.ts';
import { buildInChild } from './child-build.ts';

const releaseCli = fileURLToPath(new URL('../../src/build/release-cli.ts', import.meta.url));

export interface CommandResult {
  status: number | null;
  output: string;
}

/** `npm run release -- --notes <notes>` on the temp project's content. */
export function runRelease(root: string, notes: string): CommandResult {
  const result = spawnSync(process.execPath, [releaseCli, '--notes', notes], {
    env: { ...process.env, TREEFARM_DATA_DIR: root },
    encoding: 'utf8',
  });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

/** The public origin the history's builds are made for (SITE_ORIGIN), so its feeds have absolute links. */
export const HISTORY_ORIGIN = 'https://treefarm.example';

/** `npm run build` of the temp project's content and releases into `outDir`, in a child process. */
export function runBuild(root: string, outDir: string): Promise<CommandResult> {
  return buildInChild(outDir, { TREEFARM_DATA_DIR: root, SITE_ORIGIN: HISTORY_ORIGIN });
}

/** The id a successful `npm run release` printed. */
function releasedId(result: CommandResult): string {
  const id = /^Released (\S+) /m.exec(result.output)?.[1];
  if (result.status !== 0 || !id) throw new Error(`npm run release failed (${result.status}):\n${result.output}`);
  return id;
}

export const MAPLE = {
  name: 'Maple Tree',
  funfact: 'Maple Tree is the tree the test history adds.',
  plantingRegion: 'North America',
  level: 3,
  growthTime: 90,
  logCount: 150,
  logValue: 9,
  saplingCost: 99,
  upgradeCost: 20000,
};

export interface History {
  project: TempProject;
  /** The four release ids, oldest first: first, oak figure, maple added, knife renamed. */
  ids: [string, string, string, string];
  /** What `npm run release` said when nothing had changed since the fourth. */
  unchanged: CommandResult;
  /** The release files' names and bytes before and after that refused release. */
  filesBefore: string;
  filesAfter: string;
}

export function makeHistory(listFiles: (dir: string) => string): History {
  const project = minimalProject();
  const first = releasedId(runRelease(project.root, 'First release.'));
  project.patch('trees/oak-tree.yaml', { logValue: 7 });
  const oak = releasedId(runRelease(project.root, 'Oak logs are worth more.'));
  project.writeRaw('trees/maple-tree.yaml', stringify(MAPLE));
  const maple = releasedId(runRelease(project.root, 'A new tree: Maple.'));
  project.patch('cutters/knife.yaml', { name: 'Blade' });
  const blade = releasedId(runRelease(project.root, 'The Knife is now the Blade.'));
  const releasesDir = join(project.root, 'releases');
  const filesBefore = listFiles(releasesDir);
  const unchanged = runRelease(project.root, 'Nothing new.');
  const filesAfter = listFiles(releasesDir);
  // Left unreleased: the current API and the wiki show it, no release does.
  project.patch('trees/birch-tree.yaml', { logCount: 120 });
  return { project, ids: [first, oak, maple, blade], unchanged, filesBefore, filesAfter };
}
