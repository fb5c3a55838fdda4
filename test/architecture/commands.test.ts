// Every command explains itself (src/cli/command-line.ts): each npm script's command takes
// --help (usage, options, the variables it reads, an example) and --version (the service's and
// the data's), refuses an unknown option with its usage line, and says a bad value in one line,
// never a stack; and every one refuses, clearly, a Node it cannot run on.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, test, vi } from 'vitest';
import { projectDir } from '../../src/cli/project-dir.ts';
import { CLIENT_MINIMUM_NODE } from '../../src/client/cli/main.ts';
import { MINIMUM_NODE } from '../../src/cli/supported-node.ts';
import { minimalProject } from '../fixtures/minimal-content.ts';
import { temporaryFolder } from '../support/temporary-folders.ts';
import { nodeScripts } from '../support/npm-scripts.ts';

const { version, engines } = JSON.parse(readFileSync(join(projectDir, 'package.json'), 'utf8')) as {
  version: string;
  engines: { node: string };
};

/** The npm scripts that run a file of the project's own code (the benchmarks' too), by script name. */
const commands = nodeScripts().flatMap(({ script, file }) =>
  /^(?:src|packages|bench)\//.test(file)
    ? [{ script, file, name: script === 'start' ? 'npm start' : `npm run ${script}` }]
    : [],
);

/** A value each command refuses, and the one line that says so (exit status 1; 2 for an operand). */
const badValues: Record<string, { args?: string[]; env?: Record<string, string>; status: number; line: RegExp }> = {
  build: { env: { SITE_ORIGIN: 'ftp://wiki' }, status: 1, line: /^The build failed: SITE_ORIGIN must be an origin/ },
  release: { args: ['--notes', ' '], status: 1, line: /^No release was made: Say what changed/ },
  start: { env: { PORT: 'abc' }, status: 1, line: /^Cannot start: PORT must be a whole number/ },
  serve: { env: { WORKERS: '0' }, status: 1, line: /^Cannot start: WORKERS must be a whole number from 1 to 64/ },
  'docs:configuration': { args: ['docs'], status: 2, line: /takes no operands \(only options\), got "docs"/ },
  worker: { env: { API_RATE_LIMIT: '5/7s' }, status: 1, line: /^Cannot start: API_RATE_LIMIT must be <requests>/ },
  deploy: { env: { BODIES: 's3' }, status: 1, line: /^Cannot deploy: BODIES must be assets or r2, got "s3"/ },
  token: { args: ['my bot'], status: 1, line: /^Cannot make a token: a token name is letters/ },
  'worker:build': { args: ['chunks'], status: 2, line: /takes no operands/ },
  'bench:container': { args: ['--runs', 'five'], status: 2, line: /--runs takes a whole number, got "five"/ },
  'bundle:verify': { args: ['a.zip', '--sha256', 'abc'], status: 2, line: /--sha256/ },
  'client:size': { args: ['dist'], status: 2, line: /takes no operands/ },
  'bench:build': { args: ['1000'], status: 2, line: /takes no operands/ },
  'bench:build-api': { args: ['--runs', 'three'], status: 2, line: /--runs takes a whole number, got "three"/ },
  'bench:bundles': { args: ['--runs', 'three'], status: 2, line: /--runs takes a whole number, got "three"/ },
  'bench:releases': { args: ['--releases', 'ten'], status: 2, line: /--releases takes a whole number, got "ten"/ },
  'bench:serve': { args: ['nginx'], status: 2, line: /takes no operands/ },
  'bench:instructions': { args: ['limit'], status: 2, line: /takes no operands/ },
  'bench:site': { args: ['--runs', '2.5'], status: 2, line: /--runs takes a whole number, got "2\.5"/ },
  'bench:soak': { args: ['60'], status: 2, line: /takes no operands/ },
  'bench:startup': { args: ['--runs', 'x'], status: 2, line: /--runs takes a whole number, got "x"/ },
  'bench:suggest': { args: ['10000'], status: 2, line: /takes no operands/ },
  'bench:deploy-scale': { args: ['--trees', '1e4'], status: 2, line: /--trees takes a whole number, got "1e4"/ },
  'bench:mcp': { args: ['--calls', 'many'], status: 2, line: /--calls takes a whole number, got "many"/ },
  'bench:mcp-views': { args: ['planner'], status: 2, line: /takes no operands/ },
  'bench:discord': { args: ['--calls', 'many'], status: 2, line: /--calls takes a whole number, got "many"/ },
  'bench:lighthouse': { args: ['--runs', 'five'], status: 2, line: /--runs takes a whole number, got "five"/ },
  'bench:wiki-compression': { args: ['br'], status: 2, line: /takes no operands/ },
  'discord:register': {
    env: { DISCORD_APPLICATION_ID: 'my-app' },
    status: 1,
    line: /^Cannot register the commands: DISCORD_APPLICATION_ID must be a Discord id/,
  },
};

const STACK = /\n\s+at /;
/** A command loads its whole program before it answers: on a loaded machine that takes its time. */
const SLOW = 240_000;
vi.setConfig({ testTimeout: SLOW });

function run(file: string, args: string[], env: Record<string, string> = {}, node: string[] = []) {
  return spawnSync(process.execPath, [...node, file, ...args], {
    cwd: projectDir,
    encoding: 'utf8',
    env: { ...process.env, ...env },
    timeout: SLOW,
  });
}

test('the list holds every command, each with a bad value to try', () => {
  expect(commands.map(({ script }) => script).sort()).toEqual(Object.keys(badValues).sort());
});

describe.each(commands)('$name', ({ script, file, name }) => {
  test('--help prints the usage, the options, the variables it reads and an example', () => {
    const { status, stdout, stderr } = run(file, ['--help']);
    expect({ status, stderr }).toEqual({ status: 0, stderr: '' });
    expect(stdout).toMatch(new RegExp(`^Usage: ${name}`));
    expect(stdout).toContain('  -h, --help');
    expect(stdout).toMatch(/\nEnvironment(:\n {2}[A-Z_]+ \(default: |: none read\.)/);
    expect(stdout).toMatch(/\nExamples?:\n {2}\S/);
  });

  test('--version names the service and the data', () => {
    const { status, stdout } = run(file, ['--version']);
    expect(status).toBe(0);
    expect(stdout).toMatch(new RegExp(`^treefarm-data ${version.replaceAll('.', '\\.')} \\(Node [\\d.]+\\)\\ndata`));
  });

  test('an unknown option is refused with the usage line, exit status 2', () => {
    const { status, stdout, stderr } = run(file, ['--colour']);
    expect({ status, stdout }).toEqual({ status: 2, stdout: '' });
    expect(stderr).toMatch(new RegExp(`^${name}: Unknown option '--colour'\\.\\nUsage: ${name}`));
    expect(stderr).not.toMatch(STACK);
  });

  test('a bad value is one line naming it, no stack', () => {
    const bad = badValues[script];
    if (!bad) throw new Error(`no bad value listed for ${script}`);
    const { status, stdout, stderr } = run(file, bad.args ?? [], bad.env);
    expect({ status, stdout }).toEqual({ status: bad.status, stdout: '' });
    expect(stderr.split('\n')[0]).toMatch(bad.line);
    expect(stderr).not.toMatch(STACK);
  });
});

describe('a Node the commands cannot run on', () => {
  // Node 22.12 runs .ts files only with a flag and has no import.meta.main: the commands exited 0 doing nothing.
  const olderNode = (release: string) =>
    `data:text/javascript,Object.defineProperty(process.versions,"node",{value:"${release}"})`;

  test.each(commands)('$name refuses it in one line, exit status 1', ({ file }) => {
    const { status, stdout, stderr } = run(file, ['--help'], {}, ['--import', olderNode('22.12.0')]);
    expect({ status, stdout }).toEqual({ status: 1, stdout: '' });
    expect(stderr).toBe(
      `${file} needs Node ${MINIMUM_NODE} or later; this is Node 22.12.0. ` +
        "Run it through npm (npm run <script> uses the project's own Node), or install a newer Node.\n",
    );
  });

  test("package.json's engines names the minimum the commands check", () => {
    expect(engines.node).toBe(`>=${MINIMUM_NODE}`);
  });

  test("the client package's engines names the minimum its treefarm checks", () => {
    const client = JSON.parse(readFileSync(join(projectDir, 'packages/client/package.json'), 'utf8')) as {
      engines: { node: string };
    };
    expect(client.engines.node).toBe(`>=${CLIENT_MINIMUM_NODE}`);
  });
});

describe('what the commands do with what they are given', () => {
  test('npm run release -- --dry-run shows the release it would make and writes nothing', () => {
    const project = minimalProject();
    try {
      const release = ['src/build/release-cli.ts', '--notes', 'First.'];
      const env = { TREEFARM_DATA_DIR: project.root };
      const dry = run(release[0] ?? '', [...release.slice(1), '--dry-run'], env);
      expect(dry.status).toBe(0);
      expect(dry.stdout).toMatch(/^Would release (\S+) \(data version \w+\): 12 added, 0 removed, 0 changed, as /);
      expect(dry.stdout).toContain('\n  + trees Oak Tree\n');
      expect(existsSync(join(project.root, 'releases'))).toBe(false);
      const made = run(release[0] ?? '', release.slice(1), env);
      expect(made.status).toBe(0);
      const id = /^Would release (\S+)/.exec(dry.stdout)?.[1];
      expect(readdirSync(join(project.root, 'releases'))).toEqual([`${id}.json`]);
    } finally {
      project.remove();
    }
  });

  test("a path given to npm run resolves against the caller's folder (INIT_CWD), not the project's", () => {
    const caller = temporaryFolder('treefarm-caller-');
    try {
      const { stdout, stderr } = spawnSync(
        'npm',
        ['--prefix', projectDir, 'run', '--silent', 'bundle:verify', '--', 'here.zip'],
        {
          cwd: caller,
          encoding: 'utf8',
        },
      );
      expect(stdout).toBe('');
      const opened = join(caller, 'here.zip');
      expect(stderr).toContain(
        `here.zip: NOT a valid bundle. cannot read it: ENOENT: no such file or directory, open '${opened}'`,
      );
    } finally {
      rmSync(caller, { recursive: true, force: true });
    }
  });

  test('a port in use says to set PORT', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = holder.address() as AddressInfo;
      const { status, stderr } = run('src/server/serve.ts', [], { PORT: String(port), API_TOKENS: 'port-test' });
      expect(status).toBe(1);
      expect(stderr).toContain(
        `Cannot start: port ${port} on 127.0.0.1 is in use (EADDRINUSE): stop what holds it, ` +
          'or set PORT to another port',
      );
      expect(stderr).not.toMatch(STACK);
    } finally {
      holder.close();
    }
  });
});
