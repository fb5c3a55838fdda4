// The client package as a user gets it: built (npm run client:build), packed (npm pack) and
// installed from the tarball into a fresh plain-JavaScript project with no TypeScript. Done
// once per source state and shared by the test files (a lock keeps parallel files in line).
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { open, rm } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { projectDir } from '../../src/cli/project-dir.ts';

const run = promisify(execFile);
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
/** What the package is built from: a change to any of these makes a new package. */
const SOURCES = ['src/client', 'src/schema', 'src/contract', 'packages/client'];
const outputDir = join(projectDir, 'test-output', 'packed-client');

export interface InstalledClient {
  /** The tarball npm pack made. */
  tarball: string;
  /** The files the tarball holds, relative to the package root. */
  files: string[];
  /** A plain-JavaScript project (package.json type module, no TypeScript) with the tarball installed. */
  project: string;
  /** The installed package: project/node_modules/treefarm-data-client. */
  packageDir: string;
}

/** Runs `work` while no other test file builds or packs the client (it rewrites packages/client/dist). */
export const whilePackingAlone = (work: () => Promise<void>): Promise<void> => withLock(join(outputDir, 'lock'), work);

export async function installedClient(): Promise<InstalledClient> {
  const dir = join(outputDir, sourceHash());
  const ready = join(dir, 'ready.json');
  if (!existsSync(ready)) await withLock(join(outputDir, 'lock'), () => (existsSync(ready) ? undefined : pack(dir)));
  return JSON.parse(readFileSync(ready, 'utf8')) as InstalledClient;
}

async function pack(dir: string): Promise<void> {
  rmSync(dir, { recursive: true, force: true });
  const project = join(dir, 'project');
  mkdirSync(project, { recursive: true });
  await run(NPM, ['run', 'client:build'], { cwd: projectDir });
  const { stdout } = await run(
    NPM,
    ['pack', './packages/client', '--json', '--ignore-scripts', '--pack-destination', dir],
    {
      cwd: projectDir,
    },
  );
  const [packed] = JSON.parse(stdout) as { filename: string; files: { path: string }[] }[];
  if (!packed) throw new Error(`npm pack said nothing usable: ${stdout}`);
  const tarball = join(dir, packed.filename);
  writeFileSync(
    join(project, 'package.json'),
    `${JSON.stringify({ name: 'plain-js-project', private: true, type: 'module' }, null, 2)}\n`,
  );
  // The package's dependencies come from npm's cache when it has them (it does after npm ci).
  await run(NPM, ['install', tarball, '--no-audit', '--no-fund', '--prefer-offline'], { cwd: project });
  const installed: InstalledClient = {
    tarball,
    files: packed.files.map((file) => file.path).sort(),
    project,
    packageDir: join(project, 'node_modules', 'treefarm-data-client'),
  };
  writeFileSync(join(dir, 'ready.json'), JSON.stringify(installed));
}

function sourceHash(): string {
  const hash = createHash('sha256');
  const walk = (path: string): void => {
    if (statSync(path).isDirectory()) {
      for (const name of readdirSync(path).sort())
        if (name !== 'dist' && name !== 'node_modules') walk(join(path, name));
    } else hash.update(relative(projectDir, path)).update(readFileSync(path));
  };
  for (const source of SOURCES) walk(join(projectDir, source));
  return hash.digest('hex').slice(0, 16);
}

/** True when the process that wrote the lock file is gone (a test run that was killed). */
function isStale(path: string): boolean {
  try {
    process.kill(Number(readFileSync(path, 'utf8')), 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/** Runs `work` holding a lock file that names this process; a live holder is waited for, up to 5 minutes. */
async function withLock(path: string, work: () => Promise<void> | undefined): Promise<void> {
  mkdirSync(outputDir, { recursive: true });
  const started = Date.now();
  for (;;) {
    try {
      const handle = await open(path, 'wx');
      await handle.writeFile(String(process.pid));
      await handle.close();
      break;
    } catch {
      if (isStale(path)) rmSync(path, { force: true });
      else if (Date.now() - started > 300_000) throw new Error(`${path} is held for more than 5 minutes`);
      else await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  try {
    await work();
  } finally {
    await rm(path, { force: true });
  }
}
