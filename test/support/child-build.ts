// `npm run build` in a child process, as the tests that build a site of their own run it: a
// release history, a build whose environment holds tokens, a build with SITE_ORIGIN. The child
// reads its settings from its environment, as `npm run build` does.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const siteModule = fileURLToPath(new URL('../../src/build/site.ts', import.meta.url));

/** How a build in a child process ended: its exit status and everything it printed. */
export interface BuildRun {
  status: number | null;
  output: string;
}

/**
 * `npm run build`'s buildSite into `outDir` in a child process, its environment this one's with
 * `env` added (settings the build reads, such as TREEFARM_DATA_DIR or SITE_ORIGIN).
 */
export function buildInChild(outDir: string, env: Record<string, string>): Promise<BuildRun> {
  const script = `import { buildSite } from ${JSON.stringify(siteModule)}; await buildSite(${JSON.stringify(outDir)});`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    env: { ...process.env, CI: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  // 'close', not 'exit': only then has all of its output been read.
  return new Promise((resolve) => child.once('close', (status) => resolve({ status, output })));
}
