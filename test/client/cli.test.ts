// The `treefarm` command as a user runs it: the bin of the packed tarball, through npx in a
// plain-JavaScript project, against the local server or an offline bundle. Exit status 0
// when found, 1 when not found, 2 for usage, token, bundle or network errors, with one line.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loadContent } from '../../src/build/content.ts';
import { projectDir } from '../../src/cli/project-dir.ts';
import { bundleFileName } from '../../src/contract/bundle-layout.ts';
import { growthSpeedOf, treeEconomics } from '../../src/contract/economics.ts';
import type { Plot, Tree } from '../../src/schema/records.ts';
import type { ReleaseSummary } from '../../src/schema/releases.ts';
import { installedClient, type InstalledClient } from '../support/packed-client.ts';
import { distDir, startRuntime, type Runtime } from '../support/runtimes.ts';
import { scriptedServer } from '../support/scripted-server.ts';

const TOKEN = 'cli-test-token';
const content = loadContent(join(projectDir, 'content'));
const version = content.version;
const bundle = (format: 'tar.gz' | 'zip') => join(distDir, 'downloads', bundleFileName(version, format));
const HATCHET = { level: 3, name: 'Hatchet', cooldown: 79, cost: 5042, efficiency: [30, 40] };

let client: InstalledClient;
let runtime: Runtime;
beforeAll(async () => {
  [client, runtime] = await Promise.all([installedClient(), startRuntime('node', { tokens: [TOKEN] })]);
});
afterAll(() => runtime?.close());

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * The installed bin (node_modules/.bin/treefarm, what npx runs) with `args` in the project,
 * with TREEFARM_URL and TREEFARM_TOKEN unless `env` says otherwise; `npx` goes through npx.
 */
function treefarm(args: string[], env: Record<string, string | undefined> = {}, npx = false): Promise<Outcome> {
  // npm's own warnings (about this machine's npmrc, say) are not the CLI's output.
  const environment: Record<string, string | undefined> = {
    ...process.env,
    npm_config_loglevel: 'error',
    TREEFARM_URL: runtime.url,
    TREEFARM_TOKEN: TOKEN,
    ...env,
  };
  for (const [name, value] of Object.entries(environment)) if (value === undefined) delete environment[name];
  return new Promise((resolve) => {
    const [command = '', ...prefix] = npx ? ['npx', '--no-install', 'treefarm'] : ['node_modules/.bin/treefarm'];
    execFile(command, [...prefix, ...args], { cwd: client.project, env: environment }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
    );
  });
}

/** What is wrong, then the usage line, on stderr; exit status 2, nothing on stdout. */
function expectUsageError(outcome: Outcome, message: RegExp): void {
  const [problem, usage, ...more] = outcome.stderr.trimEnd().split('\n');
  expect({ code: outcome.code, stdout: outcome.stdout, usage, more }).toEqual({
    code: 2,
    stdout: '',
    usage: 'Usage: treefarm <command> [arguments] [options] (treefarm --help lists the commands)',
    more: [],
  });
  expect(problem).toMatch(message);
}

/** One line on stderr, nothing on stdout. */
function expectOneLineError(outcome: Outcome, code: number, message: string | RegExp): void {
  expect({ code: outcome.code, stdout: outcome.stdout, lines: outcome.stderr.trimEnd().split('\n').length }).toEqual({
    code,
    stdout: '',
    lines: 1,
  });
  expect(outcome.stderr).toMatch(message);
}

describe('found: exit status 0', () => {
  test('treefarm trees "oak tree" prints the tree, one field a line', async () => {
    const { code, stdout } = await treefarm(['trees', 'oak tree']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^name +Oak Tree$/m);
    expect(stdout).toMatch(/^level +69$/m);
  });

  test('treefarm cutters 3 --json prints the records as JSON', async () => {
    const { code, stdout } = await treefarm(['cutters', '3', '--json']);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual([HATCHET]);
  });

  test('a list prints as a table: a header, a rule, a row per record, numbers grouped, ranges as min–max', async () => {
    const { code, stdout } = await treefarm(['cutters']);
    const lines = stdout.trimEnd().split('\n');
    expect(code).toBe(0);
    expect(lines[0]?.split(/ +/)).toEqual(['level', 'name', 'cooldown', 'cost', 'efficiency']);
    expect(lines[1]).toMatch(/^[- ]+$/);
    expect(lines).toHaveLength(2 + 8);
    expect(lines[4]?.trim().split(/ +/)).toEqual(['3', 'Hatchet', '79', '5,042', '30–40']);
  });

  test('npx treefarm --help prints the usage', async () => {
    const { code, stdout } = await treefarm(['--help'], {}, true);
    expect(code).toBe(0);
    expect(stdout).toContain('Usage: treefarm <command>');
    expect(stdout).toContain('TREEFARM_TOKEN');
  });

  test('treefarm --version prints the package version and the version of the data the site serves', async () => {
    const { code, stdout } = await treefarm(['--version']);
    expect({ code, stdout }).toEqual({
      code: 0,
      stdout: `treefarm (treefarm-data-client) 1.0.0\ndata version ${version} (${runtime.url})\n`,
    });
  });

  test("treefarm --version --bundle <file> names the bundle's data version", async () => {
    const { code, stdout } = await treefarm(['--version', '--bundle', bundle('zip')]);
    expect({ code, stdout }).toEqual({
      code: 0,
      stdout: `treefarm (treefarm-data-client) 1.0.0\ndata version ${version} (${bundle('zip')})\n`,
    });
  });

  test("--url may be the API's own address (…/api): the site is what is below it", async () => {
    const { code, stdout } = await treefarm(['trees', 'oak tree', '--json', '--url', `${runtime.url}/api/`]);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject([{ name: 'Oak Tree' }]);
  });

  test("a Node older than the package's engines is refused in one line", async () => {
    const older = 'data:text/javascript,Object.defineProperty(process.versions,"node",{value:"18.20.0"})';
    const outcome = await new Promise<Outcome>((resolve) =>
      execFile(
        process.execPath,
        ['--import', older, join(client.packageDir, 'dist', 'cli.js'), '--help'],
        (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
      ),
    );
    expect(outcome).toEqual({
      code: 1,
      stdout: '',
      stderr: 'treefarm needs Node 20.0.0 or later; this is Node 18.20.0. Install a newer Node.\n',
    });
  });
});

describe('offline: --bundle <file>', () => {
  test.each(['tar.gz', 'zip'] as const)('answers from the %s bundle with no token or server', async (format) => {
    const { code, stdout } = await treefarm(['cutters', 'bread knife', '--json', '--bundle', bundle(format)], {
      TREEFARM_TOKEN: undefined,
      TREEFARM_URL: 'http://127.0.0.1:1',
    });
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject([{ name: 'Knife', level: 2 }]);
  });

  test('not found in the bundle: exit status 1', async () => {
    expectOneLineError(await treefarm(['trees', 'unicorn', '--bundle', bundle('zip')]), 1, /Nothing in trees has/);
  });

  test('a misspelt name in the bundle names the nearest, as the suggestions do', async () => {
    expectOneLineError(
      await treefarm(['trees', 'sequioa', '--bundle', bundle('tar.gz')]),
      1,
      /Nothing in trees has .* The nearest: (.*, )?Giant Sequoia \(level \d+\)/,
    );
  });

  test('a file that is not a bundle: exit status 2', async () => {
    expectOneLineError(await treefarm(['trees', '--bundle', join(distDir, 'manifest.json')]), 2, /Not a bundle/);
  });

  test('a bundle that does not exist: exit status 2, one line naming the file', async () => {
    const missing = join(distDir, 'missing.zip');
    expectOneLineError(
      await treefarm(['trees', '--bundle', missing]),
      2,
      `treefarm: Cannot read the bundle ${missing}: no such file\n`,
    );
  });
});

describe('not found: exit status 1', () => {
  test('a name no tree has says what was searched, in words that name no IDs', async () => {
    expectOneLineError(
      await treefarm(['trees', 'unicorn']),
      1,
      'treefarm: Nothing in trees has the name, earlier name or level "unicorn".\n',
    );
  });

  test('a misspelt name says nothing matched and names the nearest (sequioa: Giant Sequoia)', async () => {
    expectOneLineError(
      await treefarm(['trees', 'sequioa']),
      1,
      /^treefarm: Nothing in trees has .* The nearest: (.*, )?Giant Sequoia \(level \d+\)\.\n$/,
    );
  });
});

describe('usage, token and network errors: exit status 2', () => {
  test('no TREEFARM_TOKEN', async () => {
    expectOneLineError(await treefarm(['trees'], { TREEFARM_TOKEN: undefined }), 2, /TREEFARM_TOKEN is not set/);
  });

  test('a token the API does not know prints the API message', async () => {
    expectOneLineError(
      await treefarm(['trees'], { TREEFARM_TOKEN: 'wrong' }),
      2,
      /The provided API token is not valid/,
    );
  });

  test('nothing listening at TREEFARM_URL', async () => {
    const closed = await scriptedServer([]);
    await closed.close();
    expectOneLineError(
      await treefarm(['trees'], { TREEFARM_URL: closed.url }),
      2,
      /No answer from http:\/\/127\.0\.0\.1/,
    );
  });

  test.each([
    [['unicorns'], /unknown command unicorns/],
    [['trees', 'oak', 'tree'], /takes one search; quote a name with spaces/],
    [['suggest', 'unicorns', 'oa'], /suggest needs a kind first/],
    [['trees', '--colour'], /^treefarm: Unknown option '--colour'\.$/],
  ])('treefarm %j: what is wrong, then the usage line', async (args, message) => {
    expectUsageError(await treefarm(args), message);
  });
});

describe('suggest and releases', () => {
  test('treefarm suggest trees oa lists the trees whose name or a word of it starts with "oa"', async () => {
    const { code, stdout } = await treefarm(['suggest', 'trees', 'oa', '--json']);
    expect(code).toBe(0);
    const names = (JSON.parse(stdout) as { name: string }[]).map((entry) => entry.name);
    expect(names[0]).toBe('Oak Tree');
    expect(names).toContain('Northern Red Oak');
  });

  test('treefarm suggest forgives a typo: sequioa finds Giant Sequoia', async () => {
    const { code, stdout } = await treefarm(['suggest', 'trees', 'sequioa', '--json']);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual([{ name: 'Giant Sequoia', level: 51 }]);
  });

  test('treefarm suggest with nothing near is "nothing matches", exit 1', async () => {
    expectOneLineError(await treefarm(['suggest', 'trees', 'qqqqqqqq']), 1, /nothing matches/);
  });

  test('treefarm releases lists the releases, newest first', async () => {
    const { code, stdout } = await treefarm(['releases', '--json']);
    const releases = JSON.parse(stdout) as { id: string; date: string }[];
    expect(code).toBe(0);
    expect(releases.length).toBeGreaterThan(0);
    expect(releases.map((release) => release.date)).toEqual(
      releases
        .map((release) => release.date)
        .sort()
        .reverse(),
    );
  });

  test('treefarm releases prints a table: a row per release, its changes counted', async () => {
    const { code, stdout } = await treefarm(['releases']);
    const [header, rule, ...rows] = stdout.trimEnd().split('\n');
    const releases = JSON.parse((await treefarm(['releases', '--json'])).stdout) as ReleaseSummary[];
    expect(code).toBe(0);
    expect(header?.split(/ +/)).toEqual(['id', 'date', 'version', 'added', 'removed', 'changed', 'notes']);
    expect(rule).toMatch(/^[- ]+$/);
    expect(rows.map((row) => row.split(/ +/).slice(0, 6))).toEqual(
      releases.map(({ id, date, version, changes }) => [
        id,
        date,
        version,
        ...Object.values(changes).map((list) => list.length.toLocaleString('en-US')),
      ]),
    );
    for (const line of [header, ...rows]) expect(line?.length).toBeLessThan(160);
  });

  test('a bundle answers suggest and releases as the API does', async () => {
    for (const args of [
      ['suggest', 'trees', 'sequioa', '--json'],
      ['suggest', 'cutters', 'knif', '--json'],
      ['releases', '--json'],
    ]) {
      const online = await treefarm(args);
      const offline = await treefarm([...args, '--bundle', bundle('zip')]);
      expect(offline).toEqual(online);
    }
  });
});

describe('economics: every tree through the formulas, online and offline', () => {
  const trees = content.entries.trees.map((entry) => entry.data as Tree);
  const plots = content.entries.plots.map((entry) => entry.data as Plot);
  const FIELDS = [
    'name',
    'level',
    'harvestValue',
    'profitPerHarvest',
    'profitPerHour',
    'costToReach',
    'upgradePaybackHours',
  ];
  const sources = [
    ['online', []],
    ['the tar.gz bundle', ['--bundle', bundle('tar.gz')]],
    ['the zip bundle', ['--bundle', bundle('zip')]],
  ] as const;

  test.each(sources)(
    'treefarm economics --json from %s: every tree equals the formulas on a normal plot',
    async (_from, source) => {
      const { code, stdout } = await treefarm(['economics', '--json', ...source]);
      const rows = JSON.parse(stdout) as Record<string, unknown>[];
      expect(code).toBe(0);
      expect(rows).toHaveLength(trees.length);
      expect(rows.map((row) => Object.keys(row))).toEqual(rows.map(() => FIELDS));
      expect(rows).toEqual(treeEconomics(trees, 100));
    },
  );

  test.each(sources)(
    'treefarm economics --plot <level> --json from %s: each plot level, its growth speed',
    async (_from, source) => {
      for (const level of [1, 5, plots.length]) {
        const { code, stdout } = await treefarm(['economics', '--plot', String(level), '--json', ...source]);
        expect({ level, code }).toEqual({ level, code: 0 });
        expect(JSON.parse(stdout)).toEqual(treeEconomics(trees, growthSpeedOf(plots, level)));
      }
    },
  );

  test('a faster plot raises every profit per hour', async () => {
    const normal = JSON.parse((await treefarm(['economics', '--json'])).stdout) as { profitPerHour: number }[];
    const fast = JSON.parse((await treefarm(['economics', '--plot', '8', '--json'])).stdout) as typeof normal;
    for (const [index, row] of fast.entries())
      expect(row.profitPerHour).toBeGreaterThan(normal[index]?.profitPerHour ?? 0);
  });

  test('as a table: a row per tree under the figures, decimals per column, level 1 with no payback', async () => {
    const { code, stdout } = await treefarm(['economics', '--bundle', bundle('zip')]);
    const lines = stdout.trimEnd().split('\n');
    expect(code).toBe(0);
    expect(lines[0]?.trim().split(/ +/)).toEqual(FIELDS);
    expect(lines).toHaveLength(2 + trees.length);
    expect(lines[2]?.trim().split(/ {2,}/)).toEqual(['African Juniper', '1', '714', '645', '38,700.000', '0']);
  });

  test('a plot level no plot has: exit status 2, naming the levels', async () => {
    expectOneLineError(await treefarm(['economics', '--plot', '9']), 2, /no plot has level 9: the levels are 1 to 8/);
  });

  test.each([
    [['economics', '--plot', 'fast'], /--plot takes a plot level, a whole number from 1, got "fast"/],
    [['economics', '--plot', '0'], /--plot takes a plot level/],
    [['economics', 'oak'], /economics takes no arguments/],
    [['trees', '--plot', '3'], /--plot is an option of economics, not of trees/],
  ])('treefarm %j is a usage error', async (args, message) => {
    expectUsageError(await treefarm(args), message);
  });
});
