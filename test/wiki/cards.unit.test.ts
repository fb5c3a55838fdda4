// The cards' layout and rendering (src/wiki/card-layout.ts, card-render.ts), over the real
// content: every text readable when a chat shows the card 400 px wide, the wiki's light
// colours only, the same bytes each time, and a cache that gives back what was rendered.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import satori from 'satori';
import { beforeAll, expect, test } from 'vitest';
import { loadBuildData } from '../../src/build/build-data.ts';
import { releaseHistory } from '../../src/build/releases.ts';
import { projectDir } from '../../src/cli/project-dir.ts';
import { CARD_WIDTH, CARDS_PER_KIND, kindCardPath, recordCardPath, releaseCardPath } from '../../src/contract/cards.ts';
import { kinds, type KindId } from '../../src/schema/kinds.ts';
import { releaseFieldsOf } from '../../src/schema/releases.ts';
import {
  type CardNode,
  cardFigures,
  clipped,
  kindCard,
  kindCardAlt,
  lightColours,
  MIN_CARD_FONT_SIZE,
  recordCard,
  releaseCard,
} from '../../src/wiki/card-layout.ts';
import { releaseViews } from '../../src/wiki/changes.ts';
import { kindCardSummary, prepareKindCharts, recordCardPage, recordPage } from '../../src/wiki/model.ts';
import type { ContentOf, WikiEntry } from '../../src/wiki/views.ts';
import { temporaryFolders } from '../support/temporary-folders.ts';

/** How wide Discord's and Slack's previews show a card, about. */
const PREVIEW_WIDTH = 400;
/**
 * The floor: the smallest text's capital letters at least 7 px tall at PREVIEW_WIDTH, the
 * height of a 10 px font's (Inter's capitals are 0.73 em), which is as small as those apps'
 * own smallest text (12 px timestamps); below it, letters blur into each other.
 */
const MIN_CAPITAL_PX = 7;

const folder = temporaryFolders();
const data = loadBuildData(join(projectDir, 'content'));
const entriesOf = (kind: KindId): WikiEntry<KindId>[] =>
  data.content.entries[kind].map(({ slug, data: content }) => ({ slug, data: content as ContentOf<KindId> }));
const recordCardsOfEachKind = kinds.map((kind) => {
  const entries = entriesOf(kind.id);
  const charts = prepareKindCharts(kind.id, entries);
  return entries.map((entry, index) =>
    recordCard(kind.id, recordCardPage(kind.id, entries, index, charts), cardFigures(kind.id, entry.data)),
  );
});
const recordCards = recordCardsOfEachKind.flat();
const history = releaseHistory(data.releases, data.content).releases.map((release) => ({
  ...releaseFieldsOf(release),
  changes: release.changes,
}));
const releases = releaseViews({ releases: history }, new Set());
const kindSummaries = kinds.map((kind) => {
  const entries = entriesOf(kind.id);
  return { kind: kind.id, summary: kindCardSummary(kind.id, entries, prepareKindCharts(kind.id, entries)) };
});
const kindCards = kindSummaries.map(({ kind, summary }) => kindCard(kind, summary));
const cards: CardNode[] = [...recordCards, ...kindCards, ...releases.map(releaseCard)];

/** Every text of a card with the font size it is drawn at (inherited from the nearest element that sets one). */
function texts(card: CardNode, inherited = 16): { text: string; fontSize: number }[] {
  const own = card.props.style?.['fontSize'];
  const fontSize = typeof own === 'number' ? own : inherited;
  const children = card.props.children === undefined ? [] : [card.props.children].flat();
  return children.flatMap((child) =>
    typeof child === 'string' ? [{ text: child, fontSize }] : texts(child, fontSize),
  );
}

/** Every colour a card names: in its styles, and in its chart's SVG. */
function coloursOf(card: CardNode): string[] {
  const style = Object.values(card.props.style ?? {}).flatMap((value) => String(value).match(/#[0-9a-f]{3,8}/gi) ?? []);
  const svg = card.props.src ? (decodeURIComponent(card.props.src).match(/#[0-9a-f]{3,8}/gi) ?? []) : [];
  const children = card.props.children === undefined ? [] : [card.props.children].flat();
  return [...style, ...svg, ...children.flatMap((child) => (typeof child === 'string' ? [] : coloursOf(child)))];
}

test('there is a card of every record and every release to check', () => {
  const records = kinds.reduce((sum, kind) => sum + data.content.entries[kind.id].length, 0);
  expect(recordCards.length).toBe(records);
  expect(releases.map(({ id }) => `${id}.json`).toSorted()).toEqual(
    readdirSync(join(projectDir, 'releases')).toSorted(),
  );
});

test(`no text on any card is smaller than ${MIN_CARD_FONT_SIZE} px`, () => {
  for (const card of cards)
    for (const { text, fontSize } of texts(card))
      expect({ text, fontSize: Math.max(fontSize, MIN_CARD_FONT_SIZE) }).toEqual({ text, fontSize });
});

test(`the smallest text's capitals are ${MIN_CAPITAL_PX} px or taller on a card ${PREVIEW_WIDTH} px wide`, async () => {
  const smallest = Math.min(...cards.flatMap((card) => texts(card).map(({ fontSize }) => fontSize)));
  // Drawn as a card draws it (Inter, by satori, as outlines): the height of the outline of "H".
  const fonts = [
    {
      name: 'Inter',
      data: readFileSync(join(projectDir, 'node_modules/@fontsource/inter/files/inter-latin-400-normal.woff')),
      weight: 400 as const,
    },
  ];
  const letter = {
    type: 'div',
    props: { style: { display: 'flex', fontFamily: 'Inter', fontSize: smallest }, children: 'H' },
  };
  const svg = await satori(letter as unknown as Parameters<typeof satori>[0], { width: 200, height: 200, fonts });
  const outline = /<path[^>]* d="([^"]+)"/.exec(svg)?.[1] ?? '';
  const ys = [...outline.matchAll(/[\d.]+ ([\d.]+)/g)].map((match) => Number(match[1]));
  const height = (Math.max(...ys) - Math.min(...ys)) * (PREVIEW_WIDTH / CARD_WIDTH);
  expect(height).toBeGreaterThanOrEqual(MIN_CAPITAL_PX);
});

test("a card draws in the wiki's light colours only (wiki.css's first :root block)", () => {
  const palette = new Set(Object.values(lightColours(readFileSync(join(projectDir, 'src/wiki/wiki.css'), 'utf8'))));
  expect(palette.size).toBeGreaterThan(10);
  for (const card of cards) for (const colour of coloursOf(card)) expect(palette).toContain(colour);
});

test(`the first ${CARDS_PER_KIND} records of a kind have a card of their own, at /cards/<kind>/<slug>.png`, () => {
  expect(recordCardPath('trees', 'oak-tree', 0)).toBe('/cards/trees/oak-tree.png');
  expect(recordCardPath('gifts', 'small', CARDS_PER_KIND - 1)).toBe('/cards/gifts/small.png');
  expect(releaseCardPath('2026-11-22')).toBe('/cards/releases/2026-11-22.png');
});

test("a record past the first CARDS_PER_KIND names its kind's card, /cards/<kind>.png", () => {
  expect(recordCardPath('trees', 'tree-201', CARDS_PER_KIND)).toBe('/cards/trees.png');
  expect(recordCardPath('trees', 'tree-10000', 9_999)).toBe(kindCardPath('trees'));
});

test("a kind's card shows how many records it has, their levels and its first chart with no record marked", () => {
  for (const { kind, summary } of kindSummaries) {
    const entries = entriesOf(kind);
    const levels = entries.map((entry) => entry.data.level);
    expect(summary).toMatchObject({
      records: entries.length,
      lowestLevel: Math.min(...levels),
      highestLevel: Math.max(...levels),
    });
    expect(summary.chart?.highlight).toBeUndefined();
    const words = texts(kindCard(kind, summary)).map(({ text }) => text);
    expect(words).toEqual(expect.arrayContaining([`All ${kind}`, String(entries.length)]));
    expect(kindCardAlt(kind, summary)).toMatch(new RegExp(`^Card of all ${kind}: ${entries.length} records, levels `));
  }
});

test("a card shows what its record's page shows: title, tagline, region and first chart", () => {
  for (const kind of kinds) {
    const entries = entriesOf(kind.id);
    const charts = prepareKindCharts(kind.id, entries);
    for (const index of entries.keys()) {
      const {
        title,
        tagline,
        region,
        charts: [first],
      } = recordPage(kind.id, entries, index, charts);
      expect(recordCardPage(kind.id, entries, index, charts)).toEqual({ title, tagline, region, charts: [first] });
    }
  }
});

test('a text too long for its place is cut at a word, with an ellipsis', () => {
  expect(clipped('Short name', 30)).toBe('Short name');
  expect(clipped('First release: the game published figures for every tree', 30)).toBe('First release: the game…');
});

let cacheDir: string;
beforeAll(() => {
  // The renderer reads its cache's folder once, on its first card.
  cacheDir = folder('treefarm-card-cache-');
  process.env['CARD_CACHE_DIR'] = cacheDir;
});

test('a card renders to the same PNG bytes every time, 1200x630', async () => {
  const { renderCard } = await import('../../src/wiki/card-render.ts');
  const [card] = recordCards;
  if (!card) throw new Error('no card');
  const first = Buffer.from(await renderCard(card));
  expect(Buffer.from(await renderCard(card)).equals(first)).toBe(true);
  expect(first.subarray(1, 4).toString()).toBe('PNG');
  expect([first.readUInt32BE(16), first.readUInt32BE(20)]).toEqual([1200, 630]);
});

test('a card draws straight onto its canvas: no clip path, mask or image, each a layer apart in resvg', async () => {
  const { cardSvg } = await import('../../src/wiki/card-render.ts');
  // Every layout: each kind's first record (its chart, when its kind has one), each kind's card, each release's.
  const firstOfEachKind = recordCardsOfEachKind.flatMap((ofKind) => ofKind.slice(0, 1));
  for (const card of [...firstOfEachKind, ...kindCards, ...releases.map(releaseCard)])
    expect((await cardSvg(card)).match(/\s(?:clip-path|mask)="[^"]*"|<image\b/g) ?? []).toEqual([]);
});

/** What a failure would name the card by (unused here: the card renders). */
const ITS_NAME = { name: 'trees/a-test-card', path: '/cards/trees/a-test-card.png' };

test('a card rendered once is kept by its hash, and the next build reads it back', async () => {
  const { cardPng, renderCard } = await import('../../src/wiki/card-render.ts');
  const card = recordCards.at(-1);
  if (!card) throw new Error('no card');
  const rendered = Buffer.from(await cardPng(card, ITS_NAME));
  const kept = readdirSync(cacheDir);
  expect(kept).toHaveLength(1);
  expect(kept[0]).toMatch(/^[0-9a-f]{64}\.png$/);
  expect(readFileSync(join(cacheDir, kept[0] ?? '')).equals(rendered)).toBe(true);
  expect(Buffer.from(await cardPng(card, ITS_NAME)).equals(rendered)).toBe(true);
  expect(Buffer.from(await renderCard(card)).equals(rendered)).toBe(true);
});
