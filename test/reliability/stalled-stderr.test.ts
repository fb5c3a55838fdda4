// Stderr bounded (src/server/stderr.ts) in the real server: a flood of failures, each a stack on
// stderr, into a pipe nobody reads. The lines past the bound are dropped and counted (METRICS shows
// the count while stderr is still stalled), and once the pipe is read one line says how many.
import { spawn } from 'node:child_process';
import { closeSync, createReadStream, openSync, type ReadStream, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execFileSync } from 'node:child_process';
import { expect, onTestFinished, test } from 'vitest';
import { DOWNLOADS_DIR, type Latest, PUBLISHED_BUNDLES } from '../../src/contract/bundle-layout.ts';
import { freePort } from '../support/runtimes.ts';
import { copyDist, tempDir } from '../support/builds.ts';

const serveScript = fileURLToPath(new URL('../../src/server/serve.ts', import.meta.url));
const FAILURES = 2000;

test('a flood of failures into a stalled stderr is dropped past the bound and counted, then said', async () => {
  const workDir = tempDir('stalled-stderr');
  const dist = copyDist(join(workDir, 'dist'));
  const latest = JSON.parse(readFileSync(join(dist, PUBLISHED_BUNDLES), 'utf8')) as Latest;
  const target = `/${DOWNLOADS_DIR}/${latest.bundles[0]?.name ?? ''}`;
  // A bundle gone while it is listed: each request for it is a 500, and a stack on stderr.
  rmSync(join(dist, target));
  const fifo = join(workDir, 'stderr');
  execFileSync('mkfifo', [fifo]);
  // Read and write: opening waits for no reader; nothing reads it until the flood is over.
  const stderrFd = openSync(fifo, 'r+');
  const metricsPort = await freePort();
  const child = spawn(process.execPath, [serveScript], {
    env: { ...process.env, PORT: '0', DIST_DIR: dist, ACCESS_LOG: 'off', METRICS: String(metricsPort), WORKERS: '' },
    stdio: ['ignore', 'pipe', stderrFd],
  });
  // Also when the test times out (a finally block would not run then).
  onTestFinished(() => {
    child.kill('SIGKILL');
  });
  const readers: ReadStream[] = [];
  try {
    let stdout = '';
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout?.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        const found = /API: +(http:\/\/[^/\s]+)\/api\//.exec(stdout)?.[1];
        if (found) resolve(found);
      });
      child.once('exit', (code) => reject(new Error(`serve.ts exited with ${code}:\n${stdout}`)));
    });
    let sent = 0;
    const client = async () => {
      while (sent < FAILURES) {
        sent++;
        expect((await fetch(`${url}${target}`)).status).toBe(500);
      }
    };
    await Promise.all(Array.from({ length: 8 }, client));
    // Still stalled: the server kept serving, and counts what it dropped.
    const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    const dropped = Number(/^treefarm_stderr_lines_dropped_total (\d+)$/m.exec(metrics)?.[1]);
    // A stack is hundreds of bytes: the pipe (64 KiB) and the bound (64 KiB) hold a few hundred of them.
    expect(dropped).toBeGreaterThan(FAILURES / 2);

    // Read now: what waited comes, then the count of what was dropped.
    const notice = await new Promise<string>((resolve) => {
      let text = '';
      // A descriptor of its own: the server made the pipe non-blocking, for stderrFd too.
      const reader = createReadStream(fifo);
      readers.push(reader);
      reader.on('data', (chunk) => {
        text += chunk.toString();
        const line = /^Server: (\d+) lines for stderr dropped: .*$/m.exec(text);
        if (line) resolve(line[0]);
      });
    });
    expect(notice).toBe(
      `Server: ${dropped} lines for stderr dropped: stderr took lines more slowly than they came ` +
        '(at most 64 KiB wait to be written).',
    );
  } finally {
    child.kill('SIGKILL');
    for (const reader of readers) reader.destroy();
    closeSync(stderrFd);
    rmSync(workDir, { recursive: true, force: true });
  }
}, 300_000);
