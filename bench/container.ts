// `npm run bench:container`: the container image's size, and the time from `podman run` (what
// `docker run` does) to the first answer of GET /healthz on the published port, for --runs
// starts (default 5). The image is built from this checkout first, as the image test builds it
// (test/support/podman.ts: Debian's podman, runc, vfs, a base image made with mmdebstrap).
import '../src/cli/node-check.ts';
import { projectVersion } from '../src/cli/project-version.ts';
import { commandLine } from '../src/cli/command-line.ts';
import { buildImage, podman, spawnPodman } from '../test/support/podman.ts';
import { exitOf } from '../test/support/child-output.ts';
import { freePort } from '../test/support/runtimes.ts';

const { values } = await commandLine({
  command: 'npm run bench:container',
  summary:
    "The container image's size, and the time from `podman run` to the first answer of GET /healthz " +
    '(the image built from this checkout first, with podman, runc and a base image made by mmdebstrap).',
  options: {
    runs: { type: 'string', default: '5', value: '<n>', wholeNumber: true, description: 'starts to time' },
  },
  variables: {},
  examples: ['npm run bench:container -- --runs 5'],
  version: () => projectVersion(),
});
const runs = Math.max(1, Number(values.runs));
const TAG = 'localhost/treefarm-data:bench';

/** Whether GET /healthz answers 200 at `origin` now. */
async function healthy(origin: string): Promise<boolean> {
  try {
    const response = await fetch(`${origin}/healthz`);
    await response.arrayBuffer();
    return response.status === 200;
  } catch {
    return false;
  }
}

/** Milliseconds from spawning `podman run` to the first 200 of /healthz; the container removed after. */
async function runToFirstAnswer(): Promise<number> {
  const port = await freePort();
  const name = `treefarm-data-bench-${process.pid}-${port}`;
  const started = performance.now();
  const container = spawnPodman([
    'run',
    '--rm',
    '--name',
    name,
    '--publish',
    `127.0.0.1:${port}:4321`,
    '--env',
    'API_TOKENS=bench',
    TAG,
  ]);
  const exited = exitOf(container);
  try {
    // Polled every 10 ms: the figure is within that of the first answer.
    while (!(await healthy(`http://127.0.0.1:${port}`))) {
      if (container.exitCode !== null) throw new Error(`the container exited (${container.exitCode}) before answering`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return performance.now() - started;
  } finally {
    await podman(['stop', '--time', '10', name]);
    await exited;
  }
}

await buildImage(TAG);
const [inspected] = JSON.parse(await podman(['image', 'inspect', TAG])) as { Size: number }[];
const times: number[] = [];
for (let run = 0; run < runs; run++) times.push(await runToFirstAnswer());
times.sort((a, b) => a - b);
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
console.log(`image ${TAG}: ${((inspected?.Size ?? 0) / 1e6).toFixed(0)} MB`);
console.log(
  `podman run to the first answer of /healthz, ${runs} runs: median ${seconds(times[Math.floor(runs / 2)] ?? 0)}, ` +
    `fastest ${seconds(times[0] ?? 0)}, slowest ${seconds(times.at(-1) ?? 0)}`,
);
