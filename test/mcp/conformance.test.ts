// The official MCP conformance suite (@modelcontextprotocol/conformance, a devDependency; its
// README in node_modules) against POST /mcp on the Node server and the Worker: each of its
// server scenarios that applies here runs as its command line runs it, and every check
// passes. The others are listed with why they do not apply: a scenario that calls tools,
// prompts or resources of the suite's own test server, or tests a feature this server leaves
// out on purpose. A scenario the suite adds is neither, and fails the first test until it is
// placed. The suite's client sends no token: a gateway in this process adds the API's. Offline
// (the suite's client talks to the URL given, nothing else), and waiting on the command's exit,
// never a clock: the scenarios that wait on timers (progress, logging, event streams) are among
// those that do not apply.
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { projectDir } from '../../src/cli/project-dir.ts';
import { runtimeNames, startRuntime, type Runtime } from '../support/runtimes.ts';
import { temporaryFolders } from '../support/temporary-folders.ts';
import { type TokenGateway, tokenGateway } from '../support/token-gateway.ts';

const TOKEN = 'mcp-conformance-token';
const SUITE = join(projectDir, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');

/** The suite's server scenarios that apply to this server: each needs only what every MCP server has. */
const APPLICABLE = ['server-initialize', 'ping', 'tools-list', 'resources-list', 'prompts-list'];

const FIXTURE_TOOL = "calls a tool of the suite's own test server";
/** The suite's other server scenarios, each with why it does not apply here. */
const NOT_APPLICABLE: Readonly<Record<string, string>> = {
  'logging-set-level': 'logging is left out: the server sends no log messages, so it offers no logging capability',
  'completion-complete':
    "completes an argument of the suite's own prompt (test_prompt_with_arguments), which this server answers " +
    '-32602 as the completion rules say of a prompt it does not have',
  'tools-call-simple-text': FIXTURE_TOOL,
  'tools-call-image': FIXTURE_TOOL,
  'tools-call-audio': FIXTURE_TOOL,
  'tools-call-embedded-resource': FIXTURE_TOOL,
  'tools-call-mixed-content': FIXTURE_TOOL,
  'tools-call-error': FIXTURE_TOOL,
  'tools-call-with-logging': `${FIXTURE_TOOL}, and logging is left out`,
  'tools-call-with-progress': `${FIXTURE_TOOL}, and progress needs an event stream: answers are JSON`,
  'tools-call-sampling': `${FIXTURE_TOOL}, and the server asks no client for a completion (no sampling)`,
  'tools-call-elicitation': `${FIXTURE_TOOL}, and the server asks no client for input (no elicitation)`,
  'json-schema-2020-12': `${FIXTURE_TOOL}; this server's schemas are draft 7 on purpose, which every client reads`,
  'elicitation-sep1034-defaults': `${FIXTURE_TOOL}, and the server asks no client for input (no elicitation)`,
  'elicitation-sep1330-enums': `${FIXTURE_TOOL}, and the server asks no client for input (no elicitation)`,
  'server-sse-polling': 'event streams are left out: stateless, JSON answers, GET /mcp is 405',
  'server-sse-multiple-streams': 'event streams are left out: stateless, JSON answers, GET /mcp is 405',
  'resources-read-text': "reads a resource of the suite's own test server (test://static-text)",
  'resources-read-binary': "reads a resource of the suite's own test server (test://static-binary)",
  'resources-templates-read': "reads a templated resource of the suite's own test server (test://template/...)",
  'resources-subscribe': 'subscriptions are left out: the data changes only with a deploy (subscribe: false)',
  'resources-unsubscribe': 'subscriptions are left out: the data changes only with a deploy (subscribe: false)',
  'prompts-get-simple': "gets a prompt of the suite's own test server",
  'prompts-get-with-args': "gets a prompt of the suite's own test server",
  'prompts-get-embedded-resource': "gets a prompt of the suite's own test server",
  'prompts-get-with-image': "gets a prompt of the suite's own test server",
  'dns-rebinding-protection':
    'wants a local server without credentials to refuse a foreign Host or Origin; this one is a remote server ' +
    "under any site's name, and every request carries the API's token, which a rebinding page does not have",
};

/** The suite's command line run to its end: exit code and output. */
function suite(args: string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [SUITE, ...args], (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code) : 0, output: stdout + stderr }),
    );
  });
}

test('every server scenario of the suite is run here or listed with why it does not apply', async () => {
  const { code, output } = await suite(['list', '--server']);
  expect(code).toBe(0);
  const scenarios = [...output.matchAll(/^\s+- (\S+)/gm)].map((match) => match[1]);
  expect(scenarios.toSorted()).toEqual([...APPLICABLE, ...Object.keys(NOT_APPLICABLE)].toSorted());
});

const folder = temporaryFolders();

describe.each(runtimeNames)('on %s', (name) => {
  let runtime: Runtime;
  let gateway: TokenGateway;
  beforeAll(async () => {
    runtime = await startRuntime(name, { tokens: [TOKEN] });
    gateway = await tokenGateway(runtime.url, TOKEN);
  });
  afterAll(async () => {
    await gateway?.close();
    await runtime?.close();
  });

  test.each(APPLICABLE)(
    'the scenario %s: every check passes',
    async (scenario) => {
      const results = folder('treefarm-conformance-');
      const { code, output } = await suite([
        'server',
        '--url',
        `${gateway.url}/mcp`,
        '--scenario',
        scenario,
        '-o',
        results,
      ]);
      const [run] = readdirSync(results);
      const checks = JSON.parse(readFileSync(join(results, run ?? 'none', 'checks.json'), 'utf8')) as {
        id: string;
        status: string;
        errorMessage?: string;
      }[];
      expect(checks.length, output).toBeGreaterThan(0);
      expect(checks.filter((check) => check.status !== 'SUCCESS')).toEqual([]);
      expect(code, output).toBe(0);
    },
    60_000,
  );
});
