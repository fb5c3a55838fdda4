// POST /discord/interactions in every runtime (docs/api-contract.md, "Discord"): signed with a
// key pair made here, as Discord signs (Ed25519 over X-Signature-Timestamp + body). PING, each
// command, autocomplete, every bad signature, bad JSON, an oversized body, an unknown command and
// interaction type; each record's embed shows the API's record, each autocomplete the choices of
// GET /api/<kind>/suggest, /plan the planner's formulas; the buttons step through the records;
// every message pings no one, and what the user typed is shown as text.
import type { APIEmbed, APIInteractionResponse } from 'discord-api-types/v10';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { DISCORD_MAX_BODY_BYTES, NAME_COMMANDS } from '../../src/apps/discord/commands.ts';
import { growthSpeedOf, plan, treeEconomics } from '../../src/contract/economics.ts';
import { fieldValue, figureDefinitions, figureRow } from '../../src/contract/figures.ts';
import type { KindId, RecordsByKind } from '../../src/schema/kinds.ts';
import type { Plot, Tree } from '../../src/schema/records.ts';
import type { ReleaseSummary } from '../../src/schema/releases.ts';
import { contractRuntimeNames, type Runtime, startRuntime } from '../support/runtimes.ts';
import { discordKeys, type DiscordKeys, hex } from '../support/discord.ts';

const TOKEN = 'discord-test-token';
const PATH = '/discord/interactions';

type Button = { type: 2; style: number; label?: string; custom_id?: string; url?: string };
type Message = {
  type: number;
  data?: {
    content?: string;
    flags?: number;
    embeds?: APIEmbed[];
    choices?: { name: string; value: string }[];
    components?: { type: 1; components: Button[] }[];
    allowed_mentions?: unknown;
  };
};
const buttonsOf = (message: Message) => (message.data?.components ?? []).flatMap((row) => row.components);

describe.each(contractRuntimeNames)('the Discord app in %s', (name) => {
  let runtime: Runtime;
  let keys: DiscordKeys;
  let other: DiscordKeys;

  beforeAll(async () => {
    [keys, other] = await Promise.all([discordKeys(), discordKeys()]);
    runtime = await startRuntime(name, { tokens: [TOKEN], discordPublicKey: keys.publicKeyHex });
  }, 120_000);
  afterAll(() => runtime?.close());

  /** POSTs `body` signed by `signer` (the app's key by default), with headers changed as given. */
  async function post(body: string, { signer = keys, headers = {} as Record<string, string | null> } = {}) {
    const timestamp = String(Math.floor(Date.now() / 1000));
    const signature = await signer.sign(timestamp + body);
    const all: Record<string, string | null> = {
      'Content-Type': 'application/json',
      'X-Signature-Ed25519': signature,
      'X-Signature-Timestamp': timestamp,
      ...headers,
    };
    const sent = Object.fromEntries(
      Object.entries(all).filter((entry): entry is [string, string] => entry[1] !== null),
    );
    return fetch(runtime.url + PATH, { method: 'POST', headers: sent, body });
  }
  async function interact(interaction: object): Promise<Message> {
    const response = await post(JSON.stringify(interaction));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const message = (await response.json()) as Message;
    // Every message, in the channel or private, new or updated, pings no one.
    if (message.type === 4 || message.type === 7) expect(message.data?.allowed_mentions).toEqual({ parse: [] });
    return message;
  }
  const command = (commandName: string, options: { name: string; value: unknown; focused?: boolean }[] = []) =>
    interact({
      type: 2,
      id: '1',
      application_id: '2',
      token: 't',
      data: { id: '3', name: commandName, type: 1, options },
    });
  const autocomplete = (commandName: string, value: string) =>
    interact({
      type: 4,
      data: { name: commandName, type: 1, options: [{ name: 'name', type: 3, value, focused: true }] },
    });
  const press = (customId: unknown) =>
    interact({ type: 3, id: '4', application_id: '2', token: 't', data: { component_type: 2, custom_id: customId } });
  async function api(path: string) {
    const response = await fetch(runtime.url + path, { headers: { Authorization: `Bearer ${TOKEN}` } });
    const envelope = (await response.json()) as { data?: unknown[] };
    return { status: response.status, data: envelope.data ?? [], version: response.headers.get('x-data-version') };
  }

  /** The embed of a record shows exactly the API's record: title, every figure both ways, derived ones marked. */
  async function expectRecordEmbed<K extends KindId>(
    kind: K,
    embed: APIEmbed,
    record: RecordsByKind[K],
    version: string,
  ) {
    const definition = figureDefinitions[kind] as (typeof figureDefinitions)[KindId];
    const title = (definition.title as (data: RecordsByKind[K]) => string)(record);
    expect(embed.title).toBe(title);
    expect(embed.footer?.text).toBe(`Data version ${version}`);
    const fields = new Map((embed.fields ?? []).map((field) => [field.name, field.value]));
    const both = (label: string, unit: Parameters<typeof figureRow>[1], value: Parameters<typeof figureRow>[2]) => {
      const { shown, exact } = figureRow(label, unit, value);
      return shown === exact ? shown : `${shown} (${exact})`;
    };
    for (const [field, format] of Object.entries(definition.fields)) {
      const value = fieldValue(record, field);
      if (format.unit === 'text' || typeof value === 'string' || value === undefined) continue;
      expect(fields.get(format.label), `${kind} ${title}: ${field}`).toBe(both(format.label, format.unit, value));
    }
    for (const figure of definition.derived as {
      label: string;
      unit: Parameters<typeof figureRow>[1];
      value: (data: RecordsByKind[K]) => number;
    }[])
      expect(fields.get(`${figure.label} (derived)`)).toBe(both(figure.label, figure.unit, figure.value(record)));
    // The link is the record's wiki page, on this origin, and the page is there.
    expect(embed.url?.startsWith(`${runtime.url}/${kind}/`)).toBe(true);
    const page = await fetch(embed.url ?? '');
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(title);
    // Its image is the record's card (docs/cards.md), named by the page's slug, on this origin, and it is there.
    const slug = new URL(embed.url ?? '').pathname.split('/')[2];
    expect(embed.image?.url).toBe(`${runtime.url}/cards/${kind}/${slug}.png`);
    await expectCard(embed.image?.url);
  }

  /** A card the app names is served at its address, as a PNG. */
  async function expectCard(url: string | undefined) {
    const card = await fetch(url ?? '');
    expect(card.status).toBe(200);
    expect(card.headers.get('content-type')).toBe('image/png');
    await card.body?.cancel();
  }

  test('PING is answered PONG', async () => {
    expect(await interact({ type: 1 })).toEqual({ type: 1 });
  });

  describe('a bad signature is 401, and nothing of the body is answered', () => {
    const ping = JSON.stringify({ type: 1 });
    test.each([
      ['no signature', { headers: { 'X-Signature-Ed25519': null } }],
      ['no timestamp', { headers: { 'X-Signature-Timestamp': null } }],
      ['malformed hex', { headers: { 'X-Signature-Ed25519': 'zz'.repeat(64) } }],
      ['a signature one byte short', { headers: { 'X-Signature-Ed25519': 'ab'.repeat(63) } }],
    ])('%s', async (_case, options) => {
      const response = await post(ping, options);
      expect(response.status).toBe(401);
      expect(await response.json()).toEqual({ error: true, message: expect.stringContaining('not signed') });
    });
    test('a signature by another key', async () => {
      expect((await post(ping, { signer: other })).status).toBe(401);
    });
    test('an altered body', async () => {
      const timestamp = '1700000000';
      const signature = await keys.sign(timestamp + ping);
      const response = await fetch(runtime.url + PATH, {
        method: 'POST',
        headers: { 'X-Signature-Ed25519': signature, 'X-Signature-Timestamp': timestamp },
        body: JSON.stringify({ type: 2 }),
      });
      expect(response.status).toBe(401);
    });
    test('an altered timestamp', async () => {
      const signature = await keys.sign(`1700000000${ping}`);
      const response = await fetch(runtime.url + PATH, {
        method: 'POST',
        headers: { 'X-Signature-Ed25519': signature, 'X-Signature-Timestamp': '1700000001' },
        body: ping,
      });
      expect(response.status).toBe(401);
    });
  });

  test('a signed body that is not JSON is 400, naming it', async () => {
    const response = await post('{"type": 1');
    expect(response.status).toBe(400);
    expect(((await response.json()) as { message: string }).message).toMatch(/^The body is not JSON/);
  });

  test('a body over the bound is 413, whatever its signature', async () => {
    const response = await post(JSON.stringify({ type: 1, padding: 'x'.repeat(DISCORD_MAX_BODY_BYTES) }));
    expect(response.status).toBe(413);
    expect(((await response.json()) as { message: string }).message).toContain(String(DISCORD_MAX_BODY_BYTES));
  });

  test('a method other than POST is 405, naming POST; no answer carries a stack or a path', async () => {
    const response = await fetch(runtime.url + PATH);
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
    expect(await response.text()).not.toMatch(/\bat \S+:\d+|\/src\/|node_modules/);
  });

  test('no API token is needed: the signature is the credential', async () => {
    const response = await post(JSON.stringify({ type: 1 }), { headers: { Authorization: null } });
    expect(response.status).toBe(200);
  });

  test.each(Object.entries(NAME_COMMANDS))(
    '/%s answers the record as an embed equal to the API record',
    async (commandName, kind) => {
      const all = await api(`/api/${kind}`);
      const record = all.data.at(-1) as { name: string };
      const message = await command(commandName, [{ name: 'name', value: record.name.toLowerCase() }]);
      expect(message.type).toBe(4);
      expect(message.data?.flags).toBeUndefined();
      const found = await api(`/api/${kind}?search=${encodeURIComponent(record.name)}`);
      const embeds = message.data?.embeds ?? [];
      expect(embeds).toHaveLength(found.data.length);
      for (const [at, embed] of embeds.entries())
        await expectRecordEmbed(kind, embed, found.data[at] as RecordsByKind[typeof kind], String(found.version));
      // A link button to each record's wiki page, as the title links.
      const links = buttonsOf(message).filter((button) => button.style === 5);
      expect(links.map((button) => button.url)).toEqual(embeds.map((embed) => embed.url));
    },
  );

  test('/plot answers the plot of that level', async () => {
    const found = await api('/api/plots?search=3');
    const message = await command('plot', [{ name: 'level', value: 3 }]);
    const [embed] = message.data?.embeds ?? [];
    expect(embed).toBeDefined();
    await expectRecordEmbed('plots', embed as APIEmbed, found.data[0] as Plot, String(found.version));
  });

  test('a miss answers privately with the nearest names, never a bare "not found"', async () => {
    const message = await command('tree', [{ name: 'name', value: 'oak tre' }]);
    expect(message.data?.flags).toBe(64);
    const near = await api('/api/trees/suggest?search=oak%20tre');
    const names = (near.data as { name: string }[]).map((each) => each.name);
    expect(names.length).toBeGreaterThan(0);
    expect(message.data?.content).toContain(names[0]);
    expect(message.data?.content).toMatch(/^No tree matches `oak tre`\. The nearest: /);
  });

  test('a level past the top answers privately, naming the top level', async () => {
    const message = await command('plot', [{ name: 'level', value: 999 }]);
    expect(message.data).toEqual({
      content: expect.stringMatching(
        /^No plot has level 999: the top level is \d+\. Change the level option: for example \/plot level:3\.$/,
      ),
      flags: 64,
      allowed_mentions: { parse: [] },
    });
  });

  test('/plan answers the best tree within reach and the next upgrade, as the planner works them out', async () => {
    const trees = (await api('/api/trees')).data as Tree[];
    const plots = (await api('/api/plots')).data as Plot[];
    const growthSpeed = growthSpeedOf(plots, 2);
    const expected = plan(treeEconomics(trees, growthSpeed), { level: 10, growthSpeed, money: 5_000_000 });
    const message = await command('plan', [
      { name: 'level', value: 10 },
      { name: 'plot', value: 2 },
      { name: 'money', value: 5_000_000 },
    ]);
    const [embed] = message.data?.embeds ?? [];
    const fields = new Map((embed?.fields ?? []).map((field) => [field.name, field.value]));
    const best = expected.ranking[0];
    const next = expected.next;
    expect(best && next).toBeTruthy();
    expect(fields.get('Best tree within reach')).toBe(`${best?.name} (level ${best?.level})`);
    const { shown, exact } = figureRow('', 'money', best?.profitPerHour ?? 0);
    expect(fields.get('Profit per hour (derived)')).toBe(shown === exact ? shown : `${shown} (${exact})`);
    expect(fields.get('Next upgrade')).toMatch(new RegExp(`^${next?.name} \\(level ${next?.level}\\)`));
    expect(embed?.url).toBe(`${runtime.url}/planner/`);
    // Each figure once, in its field's one rounding: the text names, it does not count.
    expect(embed?.description).toBe(
      `${expected.ranking.length} trees within reach; the best is ${best?.name} (level ${best?.level}). ` +
        `Next upgrade: ${next?.name} (level ${next?.level}).`,
    );
  });

  test('/plan with a level past the top answers privately, naming the levels', async () => {
    const message = await command('plan', [{ name: 'level', value: 100_000 }]);
    expect(message.data?.flags).toBe(64);
    expect(message.data?.content).toMatch(
      /^No farm level 100000: the levels are 1 to \d+\. Change the level option: for example \/plan level:10/,
    );
  });

  test('/changes answers the latest release and what it changed', async () => {
    const releases = (await api('/api/releases')).data as ReleaseSummary[];
    const latest = releases[0];
    const message = await command('changes');
    const [embed] = message.data?.embeds ?? [];
    expect(embed?.title).toBe(`Release ${latest?.id}`);
    expect(embed?.url).toBe(`${runtime.url}/changes/${latest?.id}/`);
    const { added = [], removed = [], changed = [] } = latest?.changes ?? {};
    expect(embed?.description).toContain(`${added.length} added, ${removed.length} removed, ${changed.length} changed`);
    // The version served, as every other answer's footer.
    const served = await api('/api/releases');
    expect(embed?.footer?.text).toBe(`Data version ${served.version}`);
    expect(buttonsOf(message)).toContainEqual({ type: 2, style: 5, label: 'Release page', url: embed?.url });
    expect(embed?.image?.url).toBe(`${runtime.url}/cards/releases/${latest?.id}.png`);
    await expectCard(embed?.image?.url);
  });

  test.each(Object.entries(NAME_COMMANDS))(
    "/%s's autocomplete answers the names of GET /api/<kind>/suggest, in its order",
    async (commandName, kind) => {
      for (const text of ['', 'a', 'st', 'oak tre']) {
        const suggested = await api(`/api/${kind}/suggest?search=${encodeURIComponent(text)}`);
        const message = await autocomplete(commandName, text);
        expect(message.type).toBe(8);
        const found = suggested.data as { name: string; level: number }[];
        // Typed text that starts a name: each choice says its level; the value is the name.
        expect(message.data?.choices).toEqual(
          found.map(({ name: each }) => ({ name: expect.stringMatching(/ · (level \d+|as .+)$/), value: each })),
        );
        if (text !== 'a' && text !== 'st')
          expect(message.data?.choices?.map((choice) => choice.name)).toEqual(
            found.map(({ name: each, level }) => `${each} · level ${level}`),
          );
        expect(found.length).toBeLessThanOrEqual(25);
      }
    },
  );

  test('a choice says which alias the text matched: "b" offers "Knife · as Bread Knife"', async () => {
    const message = await autocomplete('cutter', 'b');
    expect(message.data?.choices).toContainEqual({ name: 'Knife · as Bread Knife', value: 'Knife' });
  });

  test('typing digits offers the records of that level, each saying its level', async () => {
    const message = await autocomplete('tree', '69');
    expect(message.data?.choices?.[0]).toEqual({ name: 'Oak Tree · level 69', value: 'Oak Tree' });
  });

  test('an unknown command answers privately, naming the commands', async () => {
    const message = await command('forest');
    expect(message.data?.flags).toBe(64);
    expect(message.data?.content).toBe(
      'This app has no command `/forest`: its commands are ' +
        '/tree, /cutter, /gift, /storage, /vehicle, /plot, /plan, /changes.',
    );
  });

  test("a blank name is refused in the command's words: the option, an example", async () => {
    const message = await command('tree', [{ name: 'name', value: '   ' }]);
    expect(message.data?.flags).toBe(64);
    expect(message.data?.content).toBe(
      'The name option takes a name, an alias or a level, of at most 100 characters. ' +
        'Change the name option: for example /tree name:oak tree.',
    );
  });

  test('a mention, @everyone and a masked link typed are shown as text, pinging no one', async () => {
    const typed = '<@123> @everyone [x](https://evil.example)\u202e';
    const message = await command('tree', [{ name: 'name', value: typed }]);
    expect(message.data?.flags).toBe(64);
    expect(message.data?.content).toMatch(/^No tree matches `<@123> @everyone \[x\]\(https:\/\/evil\.example\)`[.,]/);
    expect(message.data?.content).not.toContain('\u202e');
    expect(message.data?.allowed_mentions).toEqual({ parse: [] });
  });

  test("a button press steps from Oak Tree to the next level's tree, updating the message", async () => {
    const trees = (await api('/api/trees')).data as Tree[];
    const at = trees.findIndex((tree) => tree.name === 'Oak Tree');
    const next = trees[at + 1] as Tree;
    const shown = await command('tree', [{ name: 'name', value: 'oak tree' }]);
    const step = buttonsOf(shown).find((button) => button.label?.endsWith('▶'));
    expect(step?.label).toBe(`${next.name} ▶`);
    const pressed = await press(step?.custom_id);
    expect(pressed.type).toBe(7);
    expect(pressed.data?.embeds?.map((embed) => embed.title)).toEqual([next.name]);
    // And back.
    const back = buttonsOf(pressed).find((button) => button.label?.startsWith('◀'));
    expect(back?.label).toBe('◀ Oak Tree');
    const again = await press(back?.custom_id);
    expect(again.data?.embeds?.map((embed) => embed.title)).toEqual(['Oak Tree']);
  });

  test('the first record has no previous button, the last no next one', async () => {
    const trees = (await api('/api/trees')).data as Tree[];
    const first = await command('tree', [{ name: 'name', value: trees[0]?.name }]);
    expect(buttonsOf(first).some((button) => button.label?.startsWith('◀'))).toBe(false);
    const last = await command('tree', [{ name: 'name', value: trees.at(-1)?.name }]);
    expect(buttonsOf(last).some((button) => button.label?.endsWith('▶'))).toBe(false);
  });

  test('/plot steps by level too', async () => {
    const shown = await command('plot', [{ name: 'level', value: 3 }]);
    const step = buttonsOf(shown).find((button) => button.label === 'Level 4 plot ▶');
    const pressed = await press(step?.custom_id);
    expect(pressed.data?.embeds?.[0]?.title).toBe('Level 4 plot');
  });

  test.each([
    ['an id it never made', 'x'],
    ['a kind that is none', 'step:forest:1'],
    ['a position past the list', 'step:trees:99999'],
    ['a release that is none', 'release:1999-01-01'],
    ['no id', undefined],
  ])('a button press with %s is refused privately', async (_case, customId) => {
    const message = await press(customId);
    expect(message.type).toBe(4);
    expect(message.data?.flags).toBe(64);
    expect(message.data?.embeds).toBeUndefined();
  });

  test('an interaction type it does not answer gets a clean private "not supported"', async () => {
    const message = await interact({ type: 5, data: { custom_id: 'x' } });
    expect(message).toEqual({
      type: 4,
      data: {
        content: expect.stringMatching(/^This app does not support interactions of type `5`/),
        flags: 64,
        allowed_mentions: { parse: [] },
      },
    } satisfies APIInteractionResponse | object);
  });
});

describe('without DISCORD_PUBLIC_KEY the endpoint is off', () => {
  test('its path is the static site’s: a POST is 405, a GET 404', async () => {
    const runtime = await startRuntime('node', { tokens: [TOKEN] });
    try {
      expect((await fetch(runtime.url + PATH, { method: 'POST', body: '{}' })).status).toBe(405);
      expect((await fetch(runtime.url + PATH)).status).toBe(404);
    } finally {
      await runtime.close();
    }
  });
});

test('a key pair made here signs as Discord does (hex)', async () => {
  const keys = await discordKeys();
  expect(keys.publicKeyHex).toMatch(/^[0-9a-f]{64}$/);
  expect(await keys.sign('x')).toMatch(/^[0-9a-f]{128}$/);
  expect(hex(new Uint8Array([0, 255]))).toBe('00ff');
});
