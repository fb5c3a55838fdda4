// `npm run worker:routes`, wrangler's build command (wrangler.toml [build]): bundles each route
// module of src/worker/lazy/ (src/worker/lazy-route.ts) into its `.js` sibling, which wrangler
// uploads as a module of its own (find_additional_modules) rather than bundling it into the
// Worker's script, so an isolate compiles and evaluates it only when a request for its route
// comes. esbuild is given wrangler's own settings (target, conditions, names kept). A file is
// written only when its bytes change, and by a rename: several `wrangler dev` runs at once (the
// test suites) build alike, and none sees a half-written module or reloads for nothing.
import '../schema/node-check.ts';
import { readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { projectVersion } from '../contract/project-version.ts';
import { type CommandSpec, runMain } from '../schema/command-line.ts';

const lazyDir = fileURLToPath(new URL('../worker/lazy/', import.meta.url));

const routesCommand: CommandSpec = {
  command: 'npm run worker:routes',
  summary:
    'Bundles each route module of src/worker/lazy/ into its .js sibling, which wrangler uploads as a module of its ' +
    "own: wrangler's build command (wrangler.toml [build]), run by npm run worker and npm run deploy.",
  options: {},
  variables: {},
  examples: ['npm run worker:routes'],
  version: () => projectVersion(),
};

await runMain(routesCommand, async () => {
  const sources = readdirSync(lazyDir).filter((name) => name.endsWith('.ts'));
  if (sources.length === 0) throw new Error(`${lazyDir} holds no route module (.ts) to bundle`);

  const result = await build({
    entryPoints: sources.map((name) => join(lazyDir, name)),
    outdir: lazyDir,
    bundle: true,
    write: false,
    format: 'esm',
    target: 'es2024',
    conditions: ['workerd', 'worker', 'browser'],
    keepNames: true,
    logLevel: 'warning',
  });

  for (const file of result.outputFiles) {
    let current: Uint8Array | undefined;
    try {
      current = readFileSync(file.path);
    } catch {
      // Not built yet.
    }
    if (current && Buffer.compare(current, file.contents) === 0) continue;
    const staged = `${file.path}.${process.pid}.tmp`;
    writeFileSync(staged, file.contents);
    renameSync(staged, file.path);
  }
  return 0;
});
