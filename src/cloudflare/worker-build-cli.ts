// `npm run worker:build`, wrangler's build command (wrangler.toml [build]): bundles the Worker
// (src/worker/worker.ts) into out/worker/ with esbuild's code splitting: the main module, and in
// chunks/ a module of its own for each app the Worker imports by its first request
// (src/worker/apps.ts) and shared modules for what the apps share with each other and with the
// main module (zod, the contract), so an isolate evaluates each once. wrangler uploads the chunks
// as they are (find_additional_modules) and the main module as its own bundle of it. Nothing is
// written under src/. esbuild is given wrangler's own settings (target, conditions, names kept).
// A file is written only when its bytes change, and by a rename, and a module no longer built is
// removed: several `wrangler dev` runs at once (the
// test suites) build alike, and none sees a half-written module or reloads for nothing.
import '../cli/node-check.ts';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { projectDir } from '../cli/project-dir.ts';
import { build, type Plugin } from 'esbuild';
import { projectVersion } from '../cli/project-version.ts';
import { type CommandSpec, runMain } from '../cli/command-line.ts';

/** Where the Worker is built: wrangler.toml's `main` is its worker.js. */
export const WORKER_BUILD_DIR = join(projectDir, 'out/worker');
const ENTRY = join(projectDir, 'src/worker/worker.ts');

export interface WorkerBuildOptions {
  /** The folder written (WORKER_BUILD_DIR by default). */
  outdir?: string;
  /** Modules built in place of others, by absolute path (bench:startup's variants). */
  replace?: Readonly<Record<string, string>>;
  /** Off: every import() bundled into the one script (bench:startup's variant). */
  splitting?: boolean;
}

/** Resolves each module named in `replace` to its stand-in. */
const replacing = (replace: Readonly<Record<string, string>>): Plugin => ({
  name: 'replace',
  setup(build) {
    build.onResolve({ filter: /.*/ }, ({ path, resolveDir }) => {
      const stand = replace[join(resolveDir, path)];
      return stand === undefined ? undefined : { path: stand };
    });
  },
});

/** Every file under `dir`, relative to it. */
function filesUnder(dir: string): string[] {
  try {
    return readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => relative(dir, join(entry.parentPath, entry.name)));
  } catch {
    return [];
  }
}

/** Builds the Worker into `outdir`; the paths of the modules written there. */
export async function buildWorker({
  outdir = WORKER_BUILD_DIR,
  replace = {},
  splitting = true,
}: WorkerBuildOptions = {}): Promise<string[]> {
  const result = await build({
    entryPoints: [ENTRY],
    outdir,
    bundle: true,
    splitting,
    write: false,
    format: 'esm',
    target: 'es2024',
    conditions: ['workerd', 'worker', 'browser'],
    keepNames: true,
    entryNames: '[name]',
    chunkNames: 'chunks/[name]-[hash]',
    logLevel: 'warning',
    plugins: [replacing(replace)],
  });
  const built = new Set(result.outputFiles.map((file) => file.path));
  for (const file of result.outputFiles) {
    let current: Uint8Array | undefined;
    try {
      current = readFileSync(file.path);
    } catch {
      // Not built yet.
    }
    if (current && Buffer.compare(current, file.contents) === 0) continue;
    mkdirSync(dirname(file.path), { recursive: true });
    const staged = `${file.path}.${process.pid}.tmp`;
    writeFileSync(staged, file.contents);
    renameSync(staged, file.path);
  }
  // A module of an earlier build would be uploaded too (wrangler takes every module of the folder).
  for (const name of filesUnder(outdir))
    if (name.endsWith('.js') && !built.has(join(outdir, name))) rmSync(join(outdir, name), { force: true });
  return [...built];
}

const buildCommand: CommandSpec = {
  command: 'npm run worker:build',
  summary:
    'Bundles the Worker into out/worker/ (its main module, and a module of its own for each app and for what ' +
    "they share): wrangler's build command (wrangler.toml [build]), run by npm run worker and npm run deploy.",
  options: {},
  variables: {},
  examples: ['npm run worker:build'],
  version: () => projectVersion(),
};

if (import.meta.main)
  await runMain(buildCommand, async () => {
    await buildWorker();
    return 0;
  });
