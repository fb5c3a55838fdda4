// What bounds the commands' level options (src/apps/discord/commands.ts): the top farm level
// and the plots, read from the build in dist/ through the API's own resolver, so the options
// registered offer exactly the levels the deployment of that build answers.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { bodyLayout } from '../../../contract/body-container.ts';
import type { CommandBounds } from '../commands.ts';
import { runTool } from '../../mcp/tools.ts';
import { rootPath, shardPath, storedBodyPath } from '../../../contract/paths.ts';
import type { RouteIndex } from '../../../contract/resolve.ts';
import { checkRoot, type IndexShard } from '../../../contract/route-index.ts';

/** The routing index of the build in `distDir`, read from its files. */
function distIndex(distDir: string): RouteIndex {
  const read = (path: string) => readFileSync(join(distDir, path));
  return {
    root: (release) => {
      const path = rootPath(release);
      let text: string;
      try {
        text = read(path).toString('utf8');
      } catch {
        return undefined;
      }
      return checkRoot(JSON.parse(text), join(distDir, path));
    },
    shard: (release, n) => JSON.parse(read(shardPath(release, n)).toString('utf8')) as IndexShard,
    text: (body) => {
      const bytes = read(storedBodyPath(body));
      const [start, end] = bodyLayout(bytes, storedBodyPath(body)).identity;
      return new TextDecoder().decode(bytes.subarray(start, end));
    },
  };
}

/** The bounds of the build in `distDir`; an Error naming the missing build. */
export async function distBounds(distDir: string): Promise<CommandBounds> {
  const index = distIndex(distDir);
  if ((await index.root(undefined)) === undefined)
    throw new Error(
      `${join(distDir, rootPath(undefined))} is missing: run \`npm run build\` first (the commands' level ` +
        'options are bounded by the data the build serves).',
    );
  // Whole lists, not a page: the bounds are the top of every record.
  const [trees, plots] = await Promise.all(
    (['trees', 'plots'] as const).map((kind) => runTool(index, 'list_records', { kind }, true)),
  );
  const records = (answer: typeof trees) => answer?.data['records'] as { level: number; growthSpeed?: number }[];
  return {
    topLevel: Math.max(1, ...records(trees).map(({ level }) => level)),
    plots: records(plots).map(({ level, growthSpeed }) => ({ level, growthSpeed: growthSpeed ?? 100 })),
  };
}
