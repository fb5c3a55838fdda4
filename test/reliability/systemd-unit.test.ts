// The systemd unit docs/running.md gives (deploy/treefarm-data.service): systemd accepts it, and
// what it runs, run as systemd would (its ExecStart in its WorkingDirectory with the variables
// of the environment file, its ExecReload for `systemctl reload`, its KillSignal to the main
// process alone as KillMode=mixed sends it), reloads on SIGHUP and drains on SIGTERM;
// `systemd-analyze security` rates its sandbox; its environment file wants a token digest.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { projectDir } from '../../src/cli/project-dir.ts';
import { newToken } from '../../src/server/token-cli.ts';
import { exitOf } from '../support/child-output.ts';
import { servingProcesses, until } from '../support/serve-child.ts';
import { temporaryFolder } from '../support/temporary-folders.ts';

const UNIT_FILE = join(projectDir, 'deploy/treefarm-data.service');
const ENVIRONMENT_EXAMPLE = join(projectDir, 'deploy/environment.example');
/** Where the unit expects the checkout; the test's checkout stands in for it. */
const INSTALLED_AT = '/opt/treefarm-data';
const SYSTEMD_ANALYZE = '/usr/bin/systemd-analyze';

/** The [Service] section's settings, each key's last value (as systemd reads a key given once). */
function serviceSettings(unit: string): Map<string, string> {
  const settings = new Map<string, string>();
  let section = '';
  for (const line of unit.split('\n').map((text) => text.trim())) {
    if (line === '' || line.startsWith('#')) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header?.[1]) section = header[1];
    else if (section === 'Service') {
      const at = line.indexOf('=');
      settings.set(line.slice(0, at), line.slice(at + 1));
    }
  }
  return settings;
}

/** VARIABLE=value lines, as systemd reads an EnvironmentFile (comments and blank lines skipped). */
function environmentFile(text: string): Record<string, string> {
  const variables: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const match = /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(line.trim());
    if (match?.[1]) variables[match[1]] = match[2] ?? '';
  }
  return variables;
}

const unit = readFileSync(UNIT_FILE, 'utf8').replaceAll(INSTALLED_AT, projectDir.replace(/\/$/, ''));
const service = serviceSettings(unit);
const setting = (key: string) => {
  const value = service.get(key);
  if (value === undefined) throw new Error(`${UNIT_FILE} has no ${key}= in [Service]`);
  return value;
};

/** Runs systemd-analyze on the unit, saved under its own name in a folder of its own. */
function analyze(command: readonly string[]): { status: number | null; output: string } {
  const dir = temporaryFolder('treefarm-unit-');
  try {
    const file = join(dir, 'treefarm-data.service');
    writeFileSync(file, unit);
    const result = spawnSync(SYSTEMD_ANALYZE, [...command, file], { encoding: 'utf8' });
    return { status: result.status, output: `${result.stdout}${result.stderr}` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test.skipIf(!existsSync(SYSTEMD_ANALYZE))('systemd-analyze verify accepts the unit without a warning', () => {
  expect(analyze(['verify'])).toEqual({ status: 0, output: '' });
});

test.skipIf(!existsSync(SYSTEMD_ANALYZE))('systemd-analyze security rates the unit 3.0 or better', () => {
  const { output } = analyze(['security', '--offline=true']);
  const exposure = /Overall exposure level for treefarm-data\.service: (\d+\.\d)/.exec(output)?.[1];
  expect(exposure, output).toBeDefined();
  expect(Number(exposure)).toBeLessThanOrEqual(3);
});
if (!existsSync(SYSTEMD_ANALYZE))
  console.warn(`Skipping systemd-analyze verify and security: ${SYSTEMD_ANALYZE} is missing.`);

test('docs/running.md shows the unit as it is in deploy/', () => {
  const shown = /```ini\n([\s\S]*?)```/.exec(readFileSync(join(projectDir, 'docs/running.md'), 'utf8'))?.[1];
  expect(shown).toBe(readFileSync(UNIT_FILE, 'utf8'));
});

test('the unit restarts on failure, reads its environment file and stops the main process alone', () => {
  expect(setting('Restart')).toBe('on-failure');
  expect(setting('EnvironmentFile')).toBe('/etc/treefarm-data/environment');
  expect(setting('KillMode')).toBe('mixed');
  // Its ExecStart is node itself: no npm or shell between systemd and the server.
  expect(setting('ExecStart').split(' ')[0]).toBe(join(projectDir, 'node_modules/node/bin/node'));
});

/** The unit's ExecStart in its WorkingDirectory, with the example environment file's variables and `changes`. */
function startUnit(changes: Record<string, string>) {
  const [command = '', ...args] = setting('ExecStart').split(' ');
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    ...environmentFile(readFileSync(ENVIRONMENT_EXAMPLE, 'utf8')),
    ...changes,
  };
  return {
    env,
    main: spawn(command, args, { cwd: setting('WorkingDirectory'), env, stdio: ['ignore', 'pipe', 'pipe'] }),
  };
}

test('the environment file is for a token digest: left as in the example, the server stops naming it', async () => {
  const { main } = startUnit({ PORT: '0' });
  let output = '';
  const serving = new Promise<'serving'>((resolve) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('API:')) resolve('serving');
    };
    main.stdout.on('data', onData);
    main.stderr.on('data', onData);
  });
  try {
    expect(await Promise.race([exitOf(main), serving])).toEqual({ code: 1, signal: null });
    // Not a token made up and printed into the journal at every restart.
    expect(output).toBe('Cannot start: API_TOKEN_SHA256 entry 1 is not 64 lowercase hex digits (a SHA-256 digest)\n');
  } finally {
    if (main.exitCode === null && main.signalCode === null) main.kill('SIGTERM');
    await exitOf(main);
  }
});

test('what the unit runs reloads on its ExecReload and drains on its KillSignal, leaving nothing', {
  timeout: 180_000,
}, async () => {
  // The example's settings, but for a free port and the digest of a token `npm run token` made.
  const { env, main } = startUnit({ PORT: '0', API_TOKEN_SHA256: newToken('systemd-unit-test').entry });
  let output = '';
  main.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  main.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = exitOf(main);
  const mainPid = main.pid ?? 0;
  const workers = Number(env.WORKERS);
  try {
    await until(() => output.includes('API:') && servingProcesses(mainPid).length === workers);
    const serving = servingProcesses(mainPid);

    const reload = setting('ExecReload').replace('$MAINPID', String(mainPid)).split(' ');
    execFileSync(reload[0] ?? '', reload.slice(1));
    await until(() => (output.match(/^process \d+: Reloaded: /gm) ?? []).length >= workers);
    expect(
      (output.match(/^process (\d+): Reloaded: /gm) ?? []).map((line) => Number(/\d+/.exec(line)?.[0])).sort(),
    ).toEqual([...serving].sort());

    process.kill(mainPid, setting('KillSignal') as NodeJS.Signals);
    expect(await exited).toEqual({ code: 0, signal: null });
    expect(output).toContain(`SIGTERM: finishing in-flight requests in ${workers} serving processes, then stopping.`);
    for (const pid of serving) expect(() => process.kill(pid, 0)).toThrow();
  } finally {
    if (main.exitCode === null && main.signalCode === null) main.kill('SIGKILL');
  }
});
