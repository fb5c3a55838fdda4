// The Discord app on content that pushes Discord's limits, in every runtime: a tree named in 300
// characters, and a release with about 3,000 characters of notes that adds some 90 trees and
// changes others (Discord refuses a message past 6,000 characters of embeds). A temp project
// released twice and built by the real build, with SITE_ORIGIN set, so the links name it.
import type { APIInteractionResponseCallbackData } from 'discord-api-types/v10';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { minimalProject, type TempProject } from '../fixtures/minimal-content.ts';
import { HISTORY_ORIGIN, runBuild, runRelease } from '../support/release-history.ts';
import { discordKeys, type DiscordKeys } from '../support/discord.ts';
import { overLimits } from '../support/discord-limits.ts';
import { contractRuntimeNames, type Runtime, startRuntime } from '../support/runtimes.ts';
import { temporaryFolders } from '../support/temporary-folders.ts';

const LONG_NAME = `Giant ${'Sequoia '.repeat(37)}Tree`.slice(0, 300);
const NOTES = Array.from({ length: 60 }, (_, at) => `Note ${at}: the trees of this release grow in new regions.`)
  .join('\n')
  .slice(0, 3000);
const ADDED = 90;

const tree = (name: string, level: number) => ({
  name,
  funfact: `${name} is a tree of the test content.`,
  plantingRegion: 'Europe',
  level,
  growthTime: 60 + level,
  logCount: 100 + level,
  logValue: 6 + level,
  saplingCost: 69,
  upgradeCost: 11500 * level,
});

const temporaryFolder = temporaryFolders();
let project: TempProject;
let outDir: string;
let keys: DiscordKeys;

beforeAll(async () => {
  project = minimalProject();
  project.writeRaw('trees/giant.yaml', stringify(tree(LONG_NAME, 3)));
  const first = runRelease(project.root, 'First release.');
  if (first.status !== 0) throw new Error(`npm run release failed:\n${first.output}`);
  for (let at = 0; at < ADDED; at++)
    project.writeRaw(`trees/added-${at}.yaml`, stringify(tree(`Added Tree Number ${at} Of Many`, 4 + at)));
  project.patch('trees/oak-tree.yaml', { logValue: 7, logCount: 120, growthTime: 61 });
  project.patch('trees/birch-tree.yaml', { logValue: 8, logCount: 121 });
  const second = runRelease(project.root, NOTES);
  if (second.status !== 0) throw new Error(`npm run release failed:\n${second.output}`);
  outDir = temporaryFolder('treefarm-discord-large-');
  const build = await runBuild(project.root, outDir);
  if (build.status !== 0) throw new Error(`npm run build failed:\n${build.output}`);
  keys = await discordKeys();
}, 900_000);
afterAll(() => project?.remove());

type Button = { style: number; label?: string; custom_id?: string; url?: string };
type Sent = {
  type: number;
  data?: Omit<APIInteractionResponseCallbackData, 'components'> & {
    choices?: { name: string; value: string }[];
    components?: { components: Button[] }[];
  };
};
const buttonsOf = (sent: Sent) => (sent.data?.components ?? []).flatMap((row) => row.components);

describe.each(contractRuntimeNames)('the Discord app in %s, on content at the limits', (name) => {
  let runtime: Runtime;
  beforeAll(async () => {
    runtime = await startRuntime(name, { tokens: ['t'], servedDir: outDir, discordPublicKey: keys.publicKeyHex });
  }, 120_000);
  afterAll(() => runtime?.close());

  async function interact(interaction: object): Promise<Sent> {
    const body = JSON.stringify(interaction);
    const timestamp = String(Math.floor(Date.now() / 1000));
    const response = await fetch(`${runtime.url}/discord/interactions`, {
      method: 'POST',
      headers: { 'X-Signature-Ed25519': await keys.sign(timestamp + body), 'X-Signature-Timestamp': timestamp },
      body,
    });
    expect(response.status).toBe(200);
    const sent = (await response.json()) as Sent;
    if (sent.data && sent.type !== 8) expect(overLimits(sent.data as APIInteractionResponseCallbackData)).toEqual([]);
    return sent;
  }
  const command = (commandName: string, options: object[] = []) =>
    interact({ type: 2, data: { name: commandName, type: 1, options } });

  test("a large release's /changes is within Discord's limits, saying what it left out", async () => {
    const sent = await command('changes');
    const [embed] = sent.data?.embeds ?? [];
    expect(embed?.description).toMatch(/^90 added, 0 removed, 2 changed\n\nNote 0: /);
    const added = embed?.fields?.find((field) => field.name === `Added (${ADDED})`);
    expect(added?.value).toMatch(/\n… and \d+ more$/);
    expect(embed?.url).toMatch(new RegExp(`^${HISTORY_ORIGIN}/changes/`));
  });

  test('a 300-character name: its title and its choice within the limits, the choice finding it', async () => {
    const shown = await command('tree', [{ name: 'name', value: '3' }]);
    const [embed] = shown.data?.embeds ?? [];
    expect(embed?.title).toBe(`${LONG_NAME.slice(0, 255)}…`);
    const offered = await interact({
      type: 4,
      data: { name: 'tree', type: 1, options: [{ name: 'name', type: 3, value: 'giant', focused: true }] },
    });
    const [choice] = offered.data?.choices ?? [];
    expect(choice?.name).toHaveLength(100);
    // Too long to be a value, the name is valued by its level, which the command finds it by.
    expect(choice?.value).toBe('3');
  });

  test('links and cards name SITE_ORIGIN, the origin the build was made for', async () => {
    const shown = await command('tree', [{ name: 'name', value: 'oak tree' }]);
    expect(shown.data?.embeds?.[0]?.url).toBe(`${HISTORY_ORIGIN}/trees/oak-tree/`);
    expect(shown.data?.embeds?.[0]?.image?.url).toBe(`${HISTORY_ORIGIN}/cards/trees/oak-tree.png`);
    const link = buttonsOf(shown).find((button) => button.style === 5);
    expect(link).toMatchObject({ style: 5, url: `${HISTORY_ORIGIN}/trees/oak-tree/` });
  });

  test('the older release is a button away, and back', async () => {
    const latest = await command('changes');
    const older = buttonsOf(latest).find((button) => button.label?.startsWith('◀'));
    const pressed = await interact({ type: 3, data: { component_type: 2, custom_id: older?.custom_id } });
    expect(pressed.type).toBe(7);
    expect(pressed.data?.embeds?.[0]?.description).toMatch(/^\d+ added, 0 removed, 0 changed\n\nFirst release\.$/);
  });
});
