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
import { RELEASE_NOT_FOUND_BODY } from '../../contract/messages.ts';
import { byReleaseOrder, releaseIdParts } from '../../schema/release-ids.ts';
import { type ApiQuery, resolve, type RouteIndex } from '../../contract/resolve.ts';
import { classifyText } from '../../contract/search-query.ts';
import { recordsInWords, type Suggestion } from '../../contract/suggest.ts';
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

/** The answer, or a ToolInputError for a release that is not one (the API's 404 message). */
export async function askIn(index: RouteIndex, query: ApiQuery) {
  const answer = await ask(index, query);
  if (!answer) {
    const { message } = JSON.parse(RELEASE_NOT_FOUND_BODY) as { message: string };
    throw new ToolInputError(`release ${JSON.stringify(query.release)}: ${message} The changes tool lists them too.`);
  }
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
const nearest = (found: readonly Suggestion[]) =>
  found.length === 0 ? 'Nothing is near it either.' : `The nearest: ${listed(found, 5)}.`;

/**
 * What a miss says: for a level past the top, the top level of `all` (the kind's records, read
 * only then); else the nearest names.
 */
async function missText(
  kind: KindId,
  query: string,
  near: readonly Suggestion[],
  all: () => Promise<readonly { level: number }[]>,
): Promise<string> {
  const text = classifyText(query);
  if (text.type === 'digits') {
    const top = topLevel(await all());
    if (top !== undefined && Number(text.digits) > top)
      return `No ${nounOf(kind, 1)} has level ${query}: the top level is ${top}.`;
  }
  return `No ${nounOf(kind, 1)} matches "${query}". ${nearest(near)}`;
}

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

const handlers: { [Name in ToolName]: (index: RouteIndex, input: Input<Name>) => Promise<ToolAnswer> } = {
  async find_record(index, { kind, query, release }) {
    const search = classifyText(query);
    const answer = await records(index, kind, search, release);
    // A search answers 200 only with records; a miss is the kind's 404.
    const found = answer.status === 200;
    const near = found ? [] : await suggestions(index, kind, search, release);
    const foundRecords = answer.data as { name?: string; level: number }[];
    const all = async () => (await records(index, kind, null, release)).data as { level: number }[];
    const text = found
      ? `Found ${foundRecords.length} ${nounOf(kind, foundRecords.length)} for "${query}": ${listed(foundRecords)}.`
      : await missText(kind, query, near, all);
    return {
      text,
      data: { found, message: answer.message, version: answer.version, records: answer.data, suggestions: near },
    };
  },
  async list_records(index, { kind, release }) {
    const answer = await records(index, kind, null, release);
    const all = answer.data as { name?: string; level: number }[];
    return {
      text: `${all.length} ${nounOf(kind, all.length)}, in level order: ${listed(all)}.`,
      data: { version: answer.version, records: answer.data },
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
  async plan(index, { level, plot, money }) {
    const trees = await records(index, 'trees', null);
    const top = topLevel(trees.data as Tree[]);
    if (top !== undefined && level > top)
      throw new ToolInputError(`level: no farm level ${level}: the levels are 1 to ${top}`);
    const used = await plotOf(index, plot);
    const limit = money ?? Number.POSITIVE_INFINITY;
    const result = plan(treeEconomics(trees.data as Tree[], used.growthSpeed), {
      level,
      growthSpeed: used.growthSpeed,
      money: limit,
    });
    const best = result.ranking[0];
    const next = result.next;
    const text =
      (best
        ? `${result.ranking.length} ${nounOf('trees', result.ranking.length)} within reach; ` +
          `the best is ${labelOf(best)} at ${dollars(best.profitPerHour)} an hour.`
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
        ranking: result.ranking,
        current: result.current ?? null,
        next,
        assumptions: PLANNER_ASSUMPTIONS,
      },
    };
  },
  async tree_economics(index, { name, plot }) {
    const [answer, all, used] = await Promise.all([
      records(index, 'trees', classifyText(name)),
      records(index, 'trees', null),
      plotOf(index, plot),
    ]);
    // A miss is a 404 without data; a tree found is in the list of every tree.
    const tree = (answer.data as Tree[])[0];
    const row = tree && treeEconomics(all.data as Tree[], used.growthSpeed).find((each) => each.level === tree.level);
    if (!row) {
      const near = await suggestions(index, 'trees', classifyText(name));
      return {
        text: await missText('trees', name, near, async () => all.data as Tree[]),
        data: { found: false, version: all.version, plot: used, tree: null, economics: null, suggestions: near },
      };
    }
    return {
      text: economicsText(row),
      data: { found: true, version: all.version, plot: used, tree, economics: row, suggestions: [] },
    };
  },
  async changes(index, { since }) {
    const answer = await askIn(index, { endpoint: 'releases', suggest: false, search: null, release: null });
    const all = answer.data as ReleaseSummary[];
    let newer = all;
    if (since !== undefined) {
      const after = releaseIdParts(since);
      // The schema checks the id's shape; a date no calendar has (2026-02-30) is no release id either.
      if (!after) throw new ToolInputError(`since ${JSON.stringify(since)}: not a release id (no such day).`);
      newer = all.filter((each) => {
        const parts = releaseIdParts(each.id);
        return parts !== undefined && byReleaseOrder(parts, after) > 0;
      });
    }
    const text =
      newer.length === 0
        ? since === undefined
          ? 'There are no data releases yet.'
          : `No release after ${since}.`
        : `${newer.length} release${newer.length === 1 ? '' : 's'}, newest first: ` +
          newer
            .map(({ id, changes }) => {
              const counted = [
                [changes.added.length, 'added'],
                [changes.removed.length, 'removed'],
                [changes.changed.length, 'changed'],
              ];
              return `${id} (${counted.map(([count, what]) => `${count} ${what}`).join(', ')})`;
            })
            .join('; ') +
          '.';
    return { text, data: { releases: newer } };
  },
};

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
export function runTool(index: RouteIndex, name: ToolName, input: unknown): Promise<ToolAnswer> {
  return (handlers[name] as (index: RouteIndex, input: unknown) => Promise<ToolAnswer>)(index, input);
}
