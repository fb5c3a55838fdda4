// The MCP tools' answers: every tool answers from the prebuilt bodies through the one resolver
// (src/contract/resolve.ts) over a RouteIndex, the same one the API and the offline client
// read, so a tool's records are the API's answer to the same question; plan and
// tree_economics feed those records to the formulas of src/contract/economics.ts. Each
// answer is a short text for a person and the exact data (tool-schemas.ts types it).
import type { z } from 'zod';
import { kindById, type KindId } from '../../schema/kinds.ts';
import type { Plot, Tree } from '../../schema/records.ts';
import type { ReleaseSummary } from '../../schema/releases.ts';
import {
  growthSpeedOf,
  NORMAL_GROWTH_SPEED,
  PLANNER_ASSUMPTIONS,
  plan,
  treeEconomics,
  type TreeEconomics,
} from '../../contract/economics.ts';
import { byReleaseOrder, releaseIdParts } from '../../schema/release-ids.ts';
import { type ApiQuery, resolve, type RouteIndex } from '../../contract/resolve.ts';
import { classifyText } from '../../contract/search-query.ts';
import { recordsInWords, type Suggestion } from '../../contract/suggest.ts';
import { CursorError, DEFAULT_PAGE_LIMITS, type Page, type PageAsk, pageClause, pageOf } from './pages.ts';
import type { ToolName, tools } from './tool-schemas.ts';

/** A tool's input was wrong in a way its schema cannot say (no such release, no such plot): names the argument. */
export class ToolInputError extends Error {
  override name = 'ToolInputError';
}

/** A tool's answer: a short text for a person, and the exact data. */
export interface ToolAnswer {
  text: string;
  data: Record<string, unknown>;
}

type Input<Name extends ToolName> = z.infer<(typeof tools)[Name]['input']>;

/** The API's answer to a query: its status, envelope and data version; undefined for no such release. */
async function ask(index: RouteIndex, query: ApiQuery) {
  const resolved = await resolve(index, query);
  if (resolved.type === 'unknown-release') return undefined;
  const text = resolved.type === 'made' ? resolved.text : await index.text(resolved.body);
  const envelope = JSON.parse(text) as { message: string; data?: unknown[] };
  return {
    status: resolved.status,
    message: envelope.message,
    data: envelope.data ?? [],
    version: resolved.scope.version,
  };
}

/** The answer, or a ToolInputError for a release that is not one. */
export async function askIn(index: RouteIndex, query: ApiQuery) {
  const answer = await ask(index, query);
  if (!answer)
    throw new ToolInputError(
      `release ${JSON.stringify(query.release)}: no data release has that id (the changes tool lists them)`,
    );
  return answer;
}

type Search = ApiQuery['search'];
/** The API's answer for a kind's records (all of them for a null search); a ToolInputError for no such release. */
export const records = (index: RouteIndex, kind: KindId, search: Search, release?: string) =>
  askIn(index, { endpoint: kind, suggest: false, search, release: release ?? null });
/** The API's suggestions for a text of a kind (the first 25 for a null search). */
export const suggestions = async (index: RouteIndex, kind: KindId, search: Search, release?: string) =>
  (await askIn(index, { endpoint: kind, suggest: true, search, release: release ?? null })).data as Suggestion[];
/** The highest level of these records; undefined for none. */
const topLevel = (all: readonly { level: number }[]) =>
  all.length === 0 ? undefined : Math.max(...all.map((record) => record.level));

const nounOf = (kind: KindId, count: number) => {
  const noun = kindById(kind)?.noun ?? kind;
  return count === 1 ? noun : `${noun}s`;
};
const labelOf = (record: { name?: string; level: number }) => recordsInWords([record]);
const listed = recordsInWords;
const dollars = (value: number) => `$${Math.round(value).toLocaleString('en-US')}`;
/** How an upgrade pays back, from its payback in hours (null: never). */
const paysBack = (hours: number | null) => (hours === null ? 'never pays back' : `pays back in ${hours.toFixed(1)} h`);
/** A clause as a sentence: its first letter capitalised, one period. */
const sentence = (clause: string) => `${clause.charAt(0).toUpperCase()}${clause.slice(1)}.`;

/**
 * What a miss says, as a clause (a prompt's error puts it in a sentence of its own): for a
 * level past the top, the top level of `all` (the kind's records, read only then); else the
 * records the suggestion rule names, to ask for by name.
 */
async function missClause(
  kind: KindId,
  query: string,
  near: readonly Suggestion[],
  all: () => Promise<readonly { level: number }[]>,
): Promise<string> {
  const text = classifyText(query);
  if (text.type === 'digits') {
    const top = topLevel(await all());
    if (top !== undefined && Number(text.digits) > top)
      return `no ${nounOf(kind, 1)} has level ${query}: the top level is ${top}`;
  }
  if (near.length === 0) return `no ${nounOf(kind, 1)} matches "${query}", and none is near it`;
  const named = `no ${nounOf(kind, 1)} is named "${query}"`;
  return `${named}; the nearest are ${listed(near, 5)} (ask again by one of these names)`;
}

/** How a query found its records: named by it, the one record the suggestion rule names, or none. */
export type Match = 'exact' | 'nearest' | 'none';

/**
 * The records a query of find_record (and tree_economics, and the prompts) means: the API's
 * answer to the search; on a miss, when the suggestion rule (the API's "did you mean", the
 * same suggestions the suggest tool gives) names exactly one record, that record, else none
 * and the suggestions.
 */
export async function lookUp(index: RouteIndex, kind: KindId, query: string, release?: string) {
  const search = classifyText(query);
  const answer = await records(index, kind, search, release);
  // A search answers 200 only with records; a miss is the kind's 404.
  if (answer.status === 200) return { answer, match: 'exact' as Match, near: [] as Suggestion[] };
  const near = await suggestions(index, kind, search, release);
  const only = near.length === 1 ? near[0] : undefined;
  if (only === undefined) return { answer, match: 'none' as Match, near };
  // A plot has no name: its level finds it.
  const name = 'name' in only ? (only as { name: string }).name : undefined;
  const taken = await records(index, kind, classifyText(name ?? String(only.level)), release);
  const record = (taken.data as { name?: string; level: number }[]).filter(
    (each) => each.level === only.level && each.name === name,
  );
  return { answer: { ...taken, data: record }, match: 'nearest' as Match, near };
}

/** What a query that took the nearest record says of it, as a clause: what it was not, and what it took. */
const nearestClause = (kind: KindId, query: string, record: { name?: string; level: number }) =>
  `no ${nounOf(kind, 1)} is named "${query}"; the nearest is ${labelOf(record)}`;

/** The plot a figure is for: its level and growth speed (a normal plot without one). */
async function plotOf(index: RouteIndex, level: number | undefined) {
  if (level === undefined) return { level: null, growthSpeed: NORMAL_GROWTH_SPEED };
  const plots = (await records(index, 'plots', null)).data as Plot[];
  try {
    return { level, growthSpeed: growthSpeedOf(plots, level) };
  } catch (error) {
    throw new ToolInputError(`plot: ${(error as Error).message}`);
  }
}

/** A page's part of a tool's data: how many the whole list holds, and the next page's cursor when one follows. */
const pageData = (page: Page<unknown>) => ({
  total: page.total,
  ...(page.nextCursor === undefined ? {} : { nextCursor: page.nextCursor }),
});

type Handler<Name extends ToolName> = (index: RouteIndex, input: Input<Name>, whole: boolean) => Promise<ToolAnswer>;

const handlers: { [Name in ToolName]: Handler<Name> } = {
  async find_record(index, { kind, query, release, limit, cursor }, whole) {
    const { answer, match, near } = await lookUp(index, kind, query, release);
    const list = `find_record\n${kind}\n${query}\n${release ?? ''}\n${answer.version}`;
    const page = pageOf(answer.data, list, { limit, cursor }, DEFAULT_PAGE_LIMITS.find_record, whole);
    const foundRecords = page.items as { name?: string; level: number }[];
    const all = async () => (await records(index, kind, null, release)).data as { level: number }[];
    const [first] = foundRecords;
    const text =
      match === 'exact'
        ? `Found ${page.total} ${nounOf(kind, page.total)} for "${query}": ${listed(foundRecords)}` +
          `${pageClause(page, nounOf(kind, 2))}.`
        : match === 'nearest' && first
          ? sentence(`${nearestClause(kind, query, first)}, shown here`)
          : sentence(await missClause(kind, query, near, all));
    return {
      text,
      data: {
        found: match !== 'none',
        match,
        message: answer.message,
        version: answer.version,
        records: page.items,
        suggestions: near,
        ...pageData(page),
      },
    };
  },
  async list_records(index, { kind, release, limit, cursor }, whole) {
    const answer = await records(index, kind, null, release);
    const list = `list_records\n${kind}\n${release ?? ''}\n${answer.version}`;
    const page = pageOf(
      answer.data as { name?: string; level: number }[],
      list,
      { limit, cursor },
      DEFAULT_PAGE_LIMITS.list_records,
      whole,
    );
    return {
      text:
        `${page.total} ${nounOf(kind, page.total)}, in level order: ${listed(page.items)}` +
        `${pageClause(page, nounOf(kind, 2))}.`,
      data: { version: answer.version, records: page.items, ...pageData(page) },
    };
  },
  async suggest(index, { kind, text }) {
    // Nothing typed asks for the first 25; any other text is looked for as it is.
    const found = await suggestions(index, kind, text.trim() === '' ? null : classifyText(text));
    return {
      text: found.length === 0 ? `No suggestions for "${text}".` : `Suggestions for "${text}": ${listed(found, 25)}.`,
      data: { suggestions: found },
    };
  },
  async plan(index, { level, plot, money, limit, cursor }, whole) {
    const trees = await records(index, 'trees', null);
    const top = topLevel(trees.data as Tree[]);
    if (top !== undefined && level > top)
      throw new ToolInputError(`level: no farm level ${level}: the levels are 1 to ${top}`);
    const used = await plotOf(index, plot);
    const result = plan(treeEconomics(trees.data as Tree[], used.growthSpeed), {
      level,
      growthSpeed: used.growthSpeed,
      money: money ?? Number.POSITIVE_INFINITY,
    });
    const best = result.ranking[0];
    const next = result.next;
    const list = `plan\n${level}\n${plot ?? ''}\n${money ?? ''}\n${trees.version}`;
    const page = pageOf(result.ranking, list, { limit, cursor }, DEFAULT_PAGE_LIMITS.plan, whole);
    const text =
      (best
        ? `${result.ranking.length} ${nounOf('trees', result.ranking.length)} within reach; ` +
          `the best is ${labelOf(best)} at ${dollars(best.profitPerHour)} an hour${pageClause(page, 'trees')}.`
        : 'No tree is within reach.') +
      (next
        ? ` Next upgrade: ${labelOf(next)} for ${dollars(next.cost)}, which ${paysBack(next.paybackHours)}.`
        : ' There is no upgrade above this level.');
    return {
      text,
      data: {
        version: trees.version,
        level,
        plot: used,
        money: money ?? null,
        ranking: page.items,
        current: result.current ?? null,
        next,
        assumptions: PLANNER_ASSUMPTIONS,
        ...pageData(page),
      },
    };
  },
  async tree_economics(index, { name, plot }) {
    const [{ answer, match, near }, all, used] = await Promise.all([
      lookUp(index, 'trees', name),
      records(index, 'trees', null),
      plotOf(index, plot),
    ]);
    // A tree found is in the list of every tree.
    const tree = (answer.data as Tree[])[0];
    const row = tree && treeEconomics(all.data as Tree[], used.growthSpeed).find((each) => each.level === tree.level);
    if (!row)
      return {
        text: sentence(await missClause('trees', name, near, async () => all.data as Tree[])),
        data: { found: false, match, version: all.version, plot: used, tree: null, economics: null, suggestions: near },
      };
    const taken = match === 'nearest' ? `${sentence(`${nearestClause('trees', name, row)}, worked out here`)} ` : '';
    return {
      text: taken + economicsText(row),
      data: { found: true, match, version: all.version, plot: used, tree, economics: row, suggestions: [] },
    };
  },
  async changes(index, { since, limit, cursor }, whole) {
    const answer = await askIn(index, { endpoint: 'releases', suggest: false, search: null, release: null });
    const all = answer.data as ReleaseSummary[];
    let newer = all;
    if (since !== undefined) {
      const after = releaseIdParts(since);
      // The schema checks the id's shape; a date no calendar has (2026-02-30) is no release id either.
      if (!after) throw new ToolInputError(`since ${JSON.stringify(since)}: not a release id (no such day)`);
      newer = all.filter((each) => {
        const parts = releaseIdParts(each.id);
        return parts !== undefined && byReleaseOrder(parts, after) > 0;
      });
    }
    const page = changesPage(newer, `changes\n${since ?? ''}\n${answer.version}`, { limit, cursor }, whole);
    const text =
      newer.length === 0
        ? since === undefined
          ? 'There are no data releases yet.'
          : `No release after ${since}.`
        : `${newer.length} release${newer.length === 1 ? '' : 's'}, newest first: ` +
          page.releases
            .map(({ id }) => {
              const { changes } = newer.find((each) => each.id === id) as ReleaseSummary;
              const counted = [
                [changes.added.length, 'added'],
                [changes.removed.length, 'removed'],
                [changes.changed.length, 'changed'],
              ];
              return `${id} (${counted.map(([count, what]) => `${count} ${what}`).join(', ')})`;
            })
            .join('; ') +
          `${pageClause(page.page, 'changes')}.`;
    return { text, data: { releases: page.releases, ...pageData(page.page) } };
  },
};

const CHANGE_TYPES = ['added', 'removed', 'changed'] as const;
/** One change of a release (a release without any is one item of its own), for paging. */
interface ChangeItem {
  release: number;
  /**
   * On a release's first item: its own fields (id, date, version, notes, counts), which the page
   * shows once per release, so that a page's bytes (pageOf) count them too.
   */
  fields?: Omit<ReleaseSummary, 'changes'>;
  type?: (typeof CHANGE_TYPES)[number];
  entry?: ReleaseSummary['changes'][(typeof CHANGE_TYPES)[number]][number];
}

/**
 * A page of the releases' changes, newest release first: each release on it with this page's
 * changes of it (a long release spans pages), counted in changes. The first change of a
 * release also carries the size of the release's own fields.
 */
function changesPage(releases: readonly ReleaseSummary[], list: string, ask: PageAsk, whole: boolean) {
  const items = releases.flatMap((release, at): ChangeItem[] => {
    const { changes, ...fields } = release;
    const [first = { release: at }, ...rest] = CHANGE_TYPES.flatMap((type) =>
      changes[type].map((entry): ChangeItem => ({ release: at, type, entry })),
    );
    return [{ ...first, fields }, ...rest];
  });
  const page = pageOf(items, list, ask, DEFAULT_PAGE_LIMITS.changes, whole);
  const shown = new Map<number, ReleaseSummary>();
  for (const item of page.items) {
    const release = releases[item.release] as ReleaseSummary;
    const held = shown.get(item.release) ?? { ...release, changes: { added: [], removed: [], changed: [] } };
    shown.set(item.release, held);
    if (item.type && item.entry) (held.changes[item.type] as unknown[]).push(item.entry);
  }
  return { page, releases: [...shown.values()] };
}

function economicsText(row: TreeEconomics): string {
  const upgrade =
    row.level === 1
      ? 'it needs no upgrade (a farm starts at level 1)'
      : `reaching it costs ${dollars(row.costToReach)} of upgrades; its upgrade ${paysBack(row.upgradePaybackHours)}`;
  return (
    `${labelOf(row)}: a harvest sells for ${dollars(row.harvestValue)} and earns ${dollars(row.profitPerHarvest)}, ` +
    `${dollars(row.profitPerHour)} an hour; ${upgrade}.`
  );
}

/**
 * Runs a tool on input its schema has already accepted. A ToolInputError names an argument
 * that is wrong for the data (a release or plot that does not exist).
 */
export async function runTool(index: RouteIndex, name: ToolName, input: unknown, whole = false): Promise<ToolAnswer> {
  try {
    return await (handlers[name] as Handler<ToolName>)(index, input as Input<ToolName>, whole);
  } catch (error) {
    if (error instanceof CursorError) throw new ToolInputError(error.message);
    throw error;
  }
}
