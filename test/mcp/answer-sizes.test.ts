// Answers sized for a model: every tool's default answer, for every kind, is at most
// MAX_ANSWER_BYTES as a client receives it (the UTF-8 bytes of each text content plus those of
// structuredContent as compact JSON), over the real data and over a build of 10,000 synthetic
// trees (bench/lib/synthetic-content.ts, built once here by the API build alone, a minute or
// two), and what a page leaves out stays reachable through its cursor. Node, the Worker and
// stdio answer through the same callTool, so it is measured here in this process.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { writeSyntheticContent } from '../../bench/lib/synthetic-content.ts';
import { MAX_ANSWER_BYTES } from '../../src/apps/mcp/pages.ts';
import { callTool } from '../../src/apps/mcp/server.ts';
import { loadContent } from '../../src/build/content.ts';
import { emitApi } from '../../src/build/emit.ts';
import { RELEASES_ROUTE } from '../../src/contract/paths.ts';
import type { RouteIndex } from '../../src/contract/resolve.ts';
import { kindIds } from '../../src/schema/kind-ids.ts';
import type { ReleaseSummary } from '../../src/schema/releases.ts';
import { loadBodyStore } from '../../src/server/body-store.ts';
import { routeBody } from '../support/dist-routes.ts';
import { distDir } from '../support/runtimes.ts';
import { temporaryFolders } from '../support/temporary-folders.ts';

const utf8 = new TextEncoder();
type Result = Awaited<ReturnType<typeof callTool>>;
/** An answer's size as a client receives it: its texts, and structuredContent as compact JSON. */
const answerBytes = (result: Result) =>
  result.content.reduce((sum, part) => sum + (part.type === 'text' ? utf8.encode(part.text).length : 0), 0) +
  (result.structuredContent ? utf8.encode(JSON.stringify(result.structuredContent)).length : 0);

/** Each tool's default calls: every kind, the longest lists, a miss, several near, a whole level. */
function defaultCalls(topLevel: number): [string, Record<string, unknown>][] {
  return [
    ...kindIds.flatMap((kind): [string, Record<string, unknown>][] => [
      ['list_records', { kind }],
      ['find_record', { kind, query: '1' }],
      ['find_record', { kind, query: 'zzzzzzzz' }],
      ['suggest', { kind, text: '' }],
      ['suggest', { kind, text: '1' }],
    ]),
    ['find_record', { kind: 'trees', query: 'a' }],
    ['plan', { level: topLevel }],
    ['plan', { level: 1 }],
    ['plan', { level: topLevel, plot: 8, money: 1e15 }],
    ['tree_economics', { name: String(topLevel), plot: 8 }],
    ['tree_economics', { name: 'sequioa' }],
    ['changes', {}],
  ];
}

/** The calls whose answer is over the bound, each with its size. */
async function oversized(index: RouteIndex, calls: [string, Record<string, unknown>][]) {
  const over: string[] = [];
  for (const [name, args] of calls) {
    const result = await callTool(index, name, args);
    expect(result.isError, `${name} ${JSON.stringify(args)}`).toBeFalsy();
    if (answerBytes(result) > MAX_ANSWER_BYTES) over.push(`${name} ${JSON.stringify(args)}: ${answerBytes(result)}`);
  }
  return over;
}

/** Every item of a paged list, walked by its cursors: `key` of each page's structuredContent. */
async function walk(index: RouteIndex, name: string, args: Record<string, unknown>, key: string) {
  const items: unknown[] = [];
  let cursor: unknown;
  do {
    const result = await callTool(index, name, cursor === undefined ? args : { ...args, cursor });
    const page = result.structuredContent as Record<string, unknown>;
    items.push(...(page[key] as unknown[]));
    cursor = page['nextCursor'];
  } while (typeof cursor === 'string');
  return items;
}

describe('the real data', async () => {
  const store = await loadBodyStore(distDir);

  test('every default answer of every tool and kind is within 16 KiB', async () => {
    expect(await oversized(store.index, defaultCalls(106))).toEqual([]);
  });

  test('the whole list stays reachable, page by page, in order', async () => {
    const trees = await walk(store.index, 'list_records', { kind: 'trees' }, 'records');
    expect(trees).toHaveLength(106);
    expect(trees).toEqual(await walk(store.index, 'list_records', { kind: 'trees', limit: 100 }, 'records'));
  });

  // Twelve releases of 1,000 changed trees each, newest first: no release fits in a page.
  const release = (at: number): ReleaseSummary => ({
    id: `2027-01-${String(at + 1).padStart(2, '0')}`,
    date: `2027-01-${String(at + 1).padStart(2, '0')}`,
    version: '0123456789abcdef',
    notes: `Release ${at + 1}.`,
    counts: { trees: 1000, cutters: 8, gifts: 3, plots: 8, storages: 8, vehicles: 8 },
    changes: {
      added: [],
      removed: [],
      changed: Array.from({ length: 1000 }, (_, level) => ({
        kind: 'trees' as const,
        name: `Tree ${level + 1}`,
        level: level + 1,
        fields: { logValue: { from: level, to: level + 1 } },
      })),
    },
  });
  const releases = Array.from({ length: 12 }, (_, at) => release(11 - at));
  const body = routeBody(RELEASES_ROUTE);
  /** The real data's index, its list of releases replaced by `data`. */
  const withReleases = (data: readonly ReleaseSummary[]): RouteIndex => ({
    ...store.index,
    text: (name) =>
      name === body
        ? Promise.resolve(JSON.stringify({ error: false, message: 'Made by the test.', data }))
        : store.index.text(name),
  });
  const longReleases = withReleases(releases);

  // Sixty releases of one changed tree each, as a data set with a weekly release has within a year and more:
  // a page holds many releases, each with its own fields (id, date, version, notes, counts) beside its change.
  const shortReleases = Array.from({ length: 60 }, (_, at): ReleaseSummary => {
    const { changes, ...fields } = release(0);
    const day = `2027-${String(Math.floor(at / 28) + 1).padStart(2, '0')}-${String((at % 28) + 1).padStart(2, '0')}`;
    return {
      ...fields,
      id: day,
      date: day,
      notes: `Weekly release ${at + 1}: the logValue of one tree, as the game's patch notes give it.`,
      changes: { ...changes, changed: changes.changed.slice(at, at + 1) },
    };
  }).reverse();
  const manyReleases = withReleases(shortReleases);

  test('changes of many short releases: the default page is within 16 KiB, and every change is reachable', async () => {
    expect(await oversized(manyReleases, [['changes', {}]])).toEqual([]);
    const pages = (await walk(manyReleases, 'changes', {}, 'releases')) as ReleaseSummary[];
    expect(pages.map((each) => each.id)).toEqual(shortReleases.map((each) => each.id));
  });

  test('changes of long releases: the default page is within 16 KiB, and every change is reachable', async () => {
    expect(await oversized(longReleases, [['changes', {}]])).toEqual([]);
    const pages = (await walk(longReleases, 'changes', { limit: 100 }, 'releases')) as ReleaseSummary[];
    const changed = pages.flatMap((each) => each.changes.changed.map((entry) => `${each.id} ${entry.level}`));
    expect(changed).toEqual(
      releases.flatMap((each) => each.changes.changed.map((entry) => `${each.id} ${entry.level}`)),
    );
  });
});

/** The 10,000-tree build's folder (about 400 MB), removed when the file's tests are done. */
const temporary = temporaryFolders();

describe('a build of 10,000 trees', () => {
  let index: RouteIndex;
  beforeAll(async () => {
    const folder = temporary('treefarm-mcp-sizes-');
    const content = loadContent(writeSyntheticContent(folder, 10_000));
    mkdirSync(join(folder, 'dist'));
    await emitApi(content, join(folder, 'dist'));
    index = (await loadBodyStore(join(folder, 'dist'))).index;
  }, 600_000);

  test('every default answer of every tool and kind is within 16 KiB', async () => {
    expect(await oversized(index, defaultCalls(10_000))).toEqual([]);
  });

  test('the whole list of 10,000 trees stays reachable at 100 a page', async () => {
    const trees = (await walk(index, 'list_records', { kind: 'trees', limit: 100 }, 'records')) as { level: number }[];
    expect(trees.map((tree) => tree.level)).toEqual(Array.from({ length: 10_000 }, (_, at) => at + 1));
  }, 120_000);
});
