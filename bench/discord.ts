// `npm run bench:discord`: what the Discord app's interactions cost beside a GET: an autocomplete
// (/tree, "oak"), a command (/tree oak tree: the record as an embed with its buttons), a press of
// its next button (the next level's tree, updating the message) and the GET of the same name
// (/api/trees?search=oak%20tree), each signed as Discord signs (a key pair made here).
//
// 1. Node, in-process, CPU: process.cpuUsage() around `--calls` warm answers made by the server's
//    own code without a socket (the GET as the core decides it and the body store hands over its
//    bytes; an interaction as src/apps/discord answers a Web Request, signature check included),
//    the four kinds interleaved for `--rounds` rounds, each figure the median of its rounds (one
//    round each put a press, which does a part of a command's work, 1.2x above the command).
// 2. workerd (wrangler dev), CPU: the CPU time (utime + stime, /proc/<pid>/stat) of the workerd
//    processes of the run, before and after `--calls` sequential warm requests of each kind,
//    divided by the requests. It includes what workerd does for any request (HTTP, wrangler's
//    local entry worker), which the GET's figure shows; Cloudflare bills the Worker's own part.
import '../src/cli/node-check.ts';
import { readdirSync, readFileSync } from 'node:fs';
import { cpuPerCall, inProcessGet } from './lib/in-process.ts';
import { DISCORD_PATH } from '../src/apps/discord/bounds.ts';
import { answerDiscord, discordPublicKey } from '../src/apps/discord/interactions.ts';
import { startWorker } from '../src/cloudflare/worker-dev.ts';
import { discordKeys } from '../test/support/discord.ts';
import { freePort } from '../test/support/runtimes.ts';
import { projectVersion } from '../src/cli/project-version.ts';
import { commandLine } from '../src/cli/command-line.ts';

const { values } = await commandLine({
  command: 'npm run bench:discord',
  summary:
    "What the Discord app's interactions cost beside a GET of the same name: an autocomplete, a command and " +
    'the GET, each signed as Discord signs, in Node and in the Worker.',
  options: {
    calls: { type: 'string', default: '1000', value: '<n>', wholeNumber: true, description: 'calls of each kind' },
    rounds: {
      type: 'string',
      default: '5',
      value: '<n>',
      wholeNumber: true,
      description: 'interleaved rounds of the in-process calls',
    },
    'skip-worker': { type: 'boolean', default: false, description: 'measure Node only' },
  },
  variables: {},
  examples: ['npm run bench:discord -- --calls 1000'],
  version: () => projectVersion(),
});
const CALLS = Number(values.calls);
const ROUNDS = Math.max(1, Number(values.rounds));
const TOKEN = 'bench-discord-token';
const GET_TARGET = '/api/trees?search=oak%20tree';
const AUTOCOMPLETE = JSON.stringify({
  type: 4,
  data: { name: 'tree', type: 1, options: [{ name: 'name', type: 3, value: 'oak', focused: true }] },
});
const COMMAND = JSON.stringify({
  type: 2,
  data: { name: 'tree', type: 1, options: [{ name: 'name', value: 'oak tree' }] },
});

/** The press of the next button under /tree oak tree's answer. */
const pressOf = (customId: string) => JSON.stringify({ type: 3, data: { component_type: 2, custom_id: customId } });

const keys = await discordKeys();
const STAMP = '1700000000';
const signed = async (body: string) => ({
  'Content-Type': 'application/json',
  'X-Signature-Ed25519': await keys.sign(STAMP + body),
  'X-Signature-Timestamp': STAMP,
});
const headers = { autocomplete: await signed(AUTOCOMPLETE), command: await signed(COMMAND) };

interface Costs {
  get: number;
  autocomplete: number;
  command: number;
  press: number;
}

/** The custom_id of the next button in a command's answer. */
function nextButton(answer: string): string {
  const { data } = JSON.parse(answer) as {
    data: { components: { components: { label?: string; custom_id?: string }[] }[] };
  };
  const button = data.components.flatMap((row) => row.components).find((each) => each.label?.endsWith('▶'));
  if (!button?.custom_id) throw new Error(`/tree oak tree answered no next button: ${answer.slice(0, 200)}`);
  return button.custom_id;
}

async function inProcess(): Promise<Costs> {
  const { store, get } = await inProcessGet(GET_TARGET, TOKEN);
  const key = await discordPublicKey(keys.publicKeyHex);
  const interaction = (body: string, sent: Record<string, string>) => async () => {
    const request = new Request(`http://127.0.0.1${DISCORD_PATH}`, { method: 'POST', headers: sent, body });
    const response = await answerDiscord(request, store.index, key);
    if (response.status !== 200) throw new Error(`the interaction answered ${response.status}`);
    return response.text();
  };
  const press = pressOf(nextButton(await interaction(COMMAND, headers.command)()));
  const pressHeaders = await signed(press);
  const kinds: Record<keyof Costs, () => Promise<unknown>> = {
    get,
    autocomplete: interaction(AUTOCOMPLETE, headers.autocomplete),
    command: interaction(COMMAND, headers.command),
    press: interaction(press, pressHeaders),
  };
  const rounds: Record<keyof Costs, number[]> = { get: [], autocomplete: [], command: [], press: [] };
  for (let round = 0; round < ROUNDS; round++)
    for (const kind of Object.keys(kinds) as (keyof Costs)[]) rounds[kind].push(await cpuPerCall(CALLS, kinds[kind]));
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
  return {
    get: median(rounds.get),
    autocomplete: median(rounds.autocomplete),
    command: median(rounds.command),
    press: median(rounds.press),
  };
}

/** The CPU time (µs) of every workerd process in the process group `group`. */
function workerdCpu(group: number): number {
  const ticks = 1_000_000 / 100; // USER_HZ is 100 on Linux.
  let total = 0;
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue;
    }
    const command = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // After the command: state, ppid, pgrp (index 2), ..., utime (11), stime (12).
    if (!command.includes('workerd') || Number(fields[2]) !== group) continue;
    total += (Number(fields[11]) + Number(fields[12])) * ticks;
  }
  return total;
}

/** workerd's CPU µs and the wall time (ms) per request of `send`, after as many warm-up requests. */
async function workerdPerCall(group: number, send: () => Promise<Response>): Promise<{ cpu: number; wall: number }> {
  const run = async () => {
    for (let call = 0; call < CALLS; call++) {
      const response = await send();
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`${response.url} answered ${response.status}`);
    }
  };
  await run();
  const before = workerdCpu(group);
  const started = performance.now();
  await run();
  return { cpu: (workerdCpu(group) - before) / CALLS, wall: (performance.now() - started) / CALLS };
}

const line = (label: string, { get, autocomplete, command, press }: Costs, unit = 'µs') =>
  `${label}: GET ${get.toFixed(1)} ${unit}; autocomplete ${autocomplete.toFixed(1)} ${unit}; ` +
  `/tree ${command.toFixed(1)} ${unit}; its next button ${press.toFixed(1)} ${unit}`;

console.log(line(`Node in-process CPU per call (${CALLS} warm calls, median of ${ROUNDS} rounds)`, await inProcess()));
if (!values['skip-worker']) {
  const worker = await startWorker({
    port: await freePort(),
    tokens: [TOKEN],
    vars: { DISCORD_PUBLIC_KEY: keys.publicKeyHex },
  });
  try {
    // wrangler runs in this process and starts workerd as its child, in this process's group.
    const self = readFileSync('/proc/self/stat', 'utf8');
    const group = Number(self.slice(self.lastIndexOf(')') + 2).split(' ')[2]);
    const post = (body: string, sent: Record<string, string>) => () =>
      fetch(worker.url + DISCORD_PATH, { method: 'POST', headers: sent, body });
    const commandAnswer = await (await post(COMMAND, headers.command)()).text();
    const press = pressOf(nextButton(commandAnswer));
    const costs = {
      get: await workerdPerCall(group, () =>
        fetch(worker.url + GET_TARGET, { headers: { Authorization: `Bearer ${TOKEN}` } }),
      ),
      autocomplete: await workerdPerCall(group, post(AUTOCOMPLETE, headers.autocomplete)),
      command: await workerdPerCall(group, post(COMMAND, headers.command)),
      press: await workerdPerCall(group, post(press, await signed(press))),
    };
    const of = (measure: 'cpu' | 'wall') =>
      Object.fromEntries(Object.entries(costs).map(([name, cost]) => [name, cost[measure]])) as unknown as Costs;
    console.log(line(`workerd (wrangler dev) CPU per request (${CALLS} warm requests)`, of('cpu')));
    console.log(line(`workerd (wrangler dev) wall time per request (${CALLS} warm requests)`, of('wall'), 'ms'));
  } finally {
    await worker.close();
  }
}
