// One set of queries for both clients, built from the content: every name and alias in
// several spellings, every level, and searches that find nothing or everything.
import type { Content } from '../../src/build/content.ts';
import { ApiError, AuthError, NotFoundError, type Search, type TreefarmData } from '../../src/client/index.ts';
import { notFoundBody } from '../../src/contract/messages.ts';
import { kinds, type KindId } from '../../src/schema/kinds.ts';

export interface Query {
  kind: KindId;
  search: Search;
  /** What the contract says the query finds, worked out from the content. */
  expected: Outcome;
}

/** What a query gave: the records, or the class, status and message of the error. */
export type Outcome = { records: unknown[] } | { error: string; status: number | undefined; message: string };

function spellings(name: string): string[] {
  return [
    name,
    name.toUpperCase(),
    name.toLowerCase(),
    name.replaceAll(' ', '-'),
    name.replaceAll(' ', '_'),
    `  ${name}\t`,
    `${name}!`,
  ];
}

export function querySet(content: Content): Query[] {
  const queries: Query[] = [];
  for (const kind of kinds) {
    const entries = content.entries[kind.id];
    const add = (expected: Outcome, ...searches: Search[]) =>
      queries.push(...searches.map((search) => ({ kind: kind.id, search, expected })));
    add(
      { records: entries.map((entry) => entry.record) },
      undefined,
      null,
      '',
      '   ',
      'null',
      'NULL',
      'undefined',
      'Undefined',
    );
    for (const entry of entries) {
      const { level } = entry.data;
      add(
        { records: entries.filter((other) => other.data.level === level).map((other) => other.record) },
        level,
        String(level),
        `0${level}`,
        ` ${level} `,
      );
      const names = [
        ...('name' in entry.data ? [entry.data.name] : []),
        ...('aliases' in entry.data ? (entry.data.aliases ?? []) : []),
      ];
      for (const name of names) add({ records: [entry.record] }, ...spellings(name));
    }
    // No such level, no such name, no letters or digits, too long, a level past 2^53.
    const notFound = {
      error: 'NotFoundError',
      status: 404,
      message: (JSON.parse(notFoundBody(kind.noun)) as { message: string }).message,
    };
    add(
      notFound,
      0,
      999,
      '999',
      'unicorn',
      'Oak Treee',
      '!!!',
      '-',
      'a'.repeat(101),
      '9'.repeat(20),
      '5.0',
      '-1',
      '1e2',
    );
  }
  return queries;
}

export async function outcomeOf(client: TreefarmData, { kind, search }: Query): Promise<Outcome> {
  try {
    return { records: await client[kind](search) };
  } catch (error) {
    if (error instanceof NotFoundError || error instanceof AuthError || error instanceof ApiError) {
      return { error: error.name, status: error.status, message: error.message };
    }
    throw error;
  }
}

/** The outcomes of every query, in the order of the set. */
export async function outcomesOf(client: TreefarmData, queries: Query[]): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  for (const query of queries) outcomes.push(await outcomeOf(client, query));
  return outcomes;
}
