// The MCP tools' contract: each tool's name, title, description and input and output schemas,
// what an AI assistant reads before calling it (tool-answers.ts answers them). Names,
// descriptions and schemas are written for a model that has never seen the game.
import { z } from 'zod';
import { kindIds } from '../../schema/kinds.ts';
import {
  cutterSchema,
  giftSchema,
  plotSchema,
  storageSchema,
  treeSchema,
  vehicleSchema,
} from '../../schema/records.ts';
import { releaseSummarySchema } from '../../schema/releases.ts';
import { RELEASE_ID } from '../../schema/release-ids.ts';
import { MAX_SEARCH_LENGTH } from '../../contract/search-query.ts';
import { DEFAULT_PAGE_LIMITS, MAX_PAGE_LIMIT } from './pages.ts';

// Inputs. Each says what it means in the game's words, its unit and its range, and what a
// wrong one was expected to be (the message a model reads to correct itself). A tool's
// arguments are its own: the API's query words (`null`, `undefined`, a blank search meaning
// "all") are no words here, and a level may come as a number or as digits.

/** A value as an error message quotes it: its JSON, cut short; nothing when it was not given. */
export function given(value: unknown): string {
  if (value === undefined) return 'nothing';
  const text = JSON.stringify(value);
  // One character (…) for what is cut: three dots would run into the sentence's own period.
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}
/** The error of an argument that is not `what`: what it expects, and what was given. */
const expected = (what: string) => ({
  error: (issue: { readonly input?: unknown }) => `expected ${what}, got ${given(issue.input)}`,
});
const tooLong = expected(`at most ${MAX_SEARCH_LENGTH} characters`);
/** A whole number from 1, or its digits as text (a form such as the Inspector's may send either). */
const levelOf = (what: string) => {
  const error = expected(`${what}, a whole number from 1 (a number or digits)`);
  return z.union(
    [
      z.int(error).min(1, error),
      z
        .string(error)
        .regex(/^\s*0*[1-9][0-9]*\s*$/, error)
        .transform(Number),
    ],
    error,
  );
};
/** A name, alias or level to look for: text, not blank, or a level as a number (read as its digits). */
const searchText = (example: string, all: string) => {
  const error = expected(`a name or alias as text (${example}) or a level as a whole number from 1`);
  const text = z
    .string(error)
    .trim()
    .min(1, `expected a name or alias (${example}) or a level ("5"), got a blank text (${all})`)
    .max(MAX_SEARCH_LENGTH, tooLong);
  return z.union([text, z.int(error).min(1, error).transform(String)], error);
};
/** A page's arguments: how many items, and the cursor of the page before (pages.ts). */
const paging = (items: string, defaultLimit: number) => {
  // The default is the handler's (pages.ts), not the schema's: a limit asked for is given as asked.
  const limitError = expected(`a whole number from 1 to ${MAX_PAGE_LIMIT}`);
  const cursorError = expected('the nextCursor of the page before, as text');
  return {
    limit: z
      .int(limitError)
      .min(1, limitError)
      .max(MAX_PAGE_LIMIT, limitError)
      .optional()
      .describe(
        `How many ${items} a page gives (at most ${MAX_PAGE_LIMIT}); omit it for ${defaultLimit}, or fewer when ` +
          'they are long, to keep the answer short.',
      ),
    cursor: z
      .string(cursorError)
      .max(200, cursorError)
      .optional()
      .describe(`The nextCursor of the page before, for the next ${items}; omit it for the first page.`),
  };
};
/** What a page's answer adds: how many the whole list holds, and the cursor of the next page. */
const pageOutput = (items: string) => ({
  total: z.int().describe(`How many ${items} the whole list holds (this page may hold fewer).`),
  nextCursor: z
    .string()
    .optional()
    .describe(`Give it as cursor, with the same other arguments, for the next ${items}; absent on the last page.`),
});
/** How a query found its records (find_record's rule, which tree_economics and the prompts share). */
const match = z
  .enum(['exact', 'nearest', 'none'])
  .describe(
    'exact: the query names what was found; nearest: nothing is named so, and the one record the name ' +
      'suggestions offer for it was taken; none: nothing found (the suggestions list the nearest).',
  );
const releaseId = (what: string) => z.string(expected(what)).regex(RELEASE_ID, expected(what));
const RELEASE_ID_WORDS = 'a release id as text: YYYY-MM-DD, then -2, -3 for later releases of that day';

const KIND_MEANINGS =
  'trees: what the farm grows and sells as logs; cutters: tools that cut a grown tree into logs; gifts: reward ' +
  'boxes; plots: the land a tree grows on (a faster plot grows trees sooner); storages: hold logs; vehicles: ' +
  'deliver logs.';
const kind = z.enum(kindIds, expected(`one of ${kindIds.join(', ')}`)).describe(`The kind of record. ${KIND_MEANINGS}`);
const release = releaseId(`${RELEASE_ID_WORDS} (the changes tool lists them)`)
  .optional()
  .describe(
    'A data release id (YYYY-MM-DD, then -2, -3 for later releases of that day) to answer from the data as it ' +
      'was in that release; omit it for the current data. The changes tool lists the releases.',
  );
const level = levelOf('a level').describe(
  "A level: the game's progression step. A farm starts at level 1 and upgrades one level at a time; each tree " +
    'has its own level, and reaching a level lets the farm plant the trees of that level and below.',
);
const plot = levelOf('a plot level')
  .optional()
  .describe(
    'The level of the plot (the land) the tree grows on: a higher plot grows trees faster (its growth speed, in ' +
      'percent of normal). Omit it for a normal plot (100 %, the level 1 plot). The plots kind lists them.',
  );

// Outputs: the API's records as its schemas (src/schema/records.ts) define them.

const anyRecord = z
  .union([treeSchema, cutterSchema, giftSchema, plotSchema, storageSchema, vehicleSchema])
  .describe('A record of the kind asked for, with every figure the game publishes for it.');
const suggestionSchema = z
  .object({
    name: z.string().optional().describe('The name the game shows (plots have none).'),
    level: z.int().describe('Its level.'),
  })
  .describe('A record that completes or nearly matches the text.');
const version = z.string().describe('The data version the answer comes from (it changes with each data update).');
const economicsRow = z.object({
  name: z.string(),
  level: z.int(),
  harvestValue: z.number().describe('In-game dollars one harvest sells for: logs per harvest × log value.'),
  profitPerHarvest: z.number().describe('In-game dollars one harvest earns once the sapling to replant is paid.'),
  profitPerHour: z.number().describe('In-game dollars an hour of growing it earns on the plot.'),
  costToReach: z.number().describe('In-game dollars of upgrades from level 1 to its level.'),
  upgradePaybackHours: z
    .number()
    .nullable()
    .describe(
      'Hours of growing it until its upgrade cost is earned back over the tree one level below; null at level 1 ' +
        'or when it earns no more per hour (never pays back).',
    ),
});
const plotUsed = z
  .object({ level: z.int().nullable(), growthSpeed: z.number() })
  .describe('The plot the figures are for: its level (null: a normal plot) and growth speed in percent.');

const TEXT_EXPECTED = expected(`text of at most ${MAX_SEARCH_LENGTH} characters, or a level as a whole number`);

export const tools = {
  find_record: {
    title: 'Find a record',
    description:
      'Looks up records of the tree-farming game by name, alias or level. A name matches whatever its case, ' +
      'spaces or punctuation ("oak tree", "OakTree"); digits ask for every record of that level. When no record ' +
      'is named so and exactly one name is near it (a typo, or the start of one name), that record is answered ' +
      'and the text says which; when several are near, they are listed (name and level) to ask again by one. ' +
      'Many records of one level come a page at a time (limit, and the nextCursor as cursor).',
    input: z.strictObject({
      kind,
      query: searchText('"giant sequoia"', 'list_records lists every record').describe(
        'A name or alias ("giant sequoia"), or a level as digits ("5") or a number.',
      ),
      release,
      ...paging('records', DEFAULT_PAGE_LIMITS.find_record),
    }),
    output: z.object({
      found: z.boolean(),
      match,
      message: z.string().describe('What was found, in one sentence.'),
      version,
      records: z.array(anyRecord).describe('The records found (this page of them); empty when none was.'),
      suggestions: z
        .array(suggestionSchema)
        .describe(
          'The names the suggest tool offers for the same text: when none was found, to ask again by one; when ' +
            'the nearest was taken, that one; else empty.',
        ),
      ...pageOutput('records'),
    }),
  },
  list_records: {
    title: 'List every record of a kind',
    description:
      'Every record of one kind, in level order, a page at a time (limit, and the nextCursor as cursor, for the ' +
      "next page). Each record carries the game's published figures: money in in-game dollars, times in seconds, " +
      'speeds and efficiencies in percent.',
    input: z.strictObject({ kind, release, ...paging('records', DEFAULT_PAGE_LIMITS.list_records) }),
    output: z.object({
      version,
      records: z.array(anyRecord).describe('This page of the records, in level order.'),
      ...pageOutput('records'),
    }),
  },
  suggest: {
    title: 'Suggest names',
    description:
      'Type-ahead: up to 25 records whose name, word or alias starts with the text, or digits that start a level; ' +
      'when nothing starts with it, the nearest names within one or two typos.',
    input: z.strictObject({
      kind,
      text: z
        .union(
          [
            z.string(TEXT_EXPECTED).max(MAX_SEARCH_LENGTH, tooLong),
            z.int(TEXT_EXPECTED).min(1, TEXT_EXPECTED).transform(String),
          ],
          TEXT_EXPECTED,
        )
        .describe('What has been typed so far (a level as digits or a number); empty for the first 25.'),
    }),
    output: z.object({ suggestions: z.array(suggestionSchema) }),
  },
  plan: {
    title: 'Plan the next trees',
    description:
      'The planner: every tree a player can reach from their level with their money (upgrading one level at a ' +
      'time), ranked by profit per hour on their plot, best first, and their next upgrade with its payback. ' +
      'Money is in in-game dollars; profit per hour assumes a tree is replanted at once after each harvest ' +
      '(the assumptions are listed in the answer). The ranking comes a page at a time (limit, and the ' +
      'nextCursor as cursor, for the next trees).',
    input: z.strictObject({
      level: level.describe(
        `The level the player's farm has reached (1 at the start; each upgrade adds one). ${level.description}`,
      ),
      plot,
      money: z
        .number(expected('in-game dollars, a number from 0'))
        .min(0, expected('in-game dollars, a number from 0'))
        .optional()
        .describe('In-game dollars the player can spend on upgrades; omit it for no limit.'),
      ...paging('trees of the ranking', DEFAULT_PAGE_LIMITS.plan),
    }),
    output: z.object({
      version,
      level: z.int(),
      plot: plotUsed,
      money: z.number().nullable().describe('The money limit, in in-game dollars; null: none.'),
      ranking: z
        .array(
          economicsRow.extend({
            costFromHere: z.number().describe("In-game dollars of upgrades from the player's level to this tree."),
          }),
        )
        .describe('The trees within reach, best profit per hour first (ties: lower level first): this page of them.'),
      current: economicsRow.nullable().describe("The tree of the player's own level."),
      next: z
        .object({
          name: z.string(),
          level: z.int(),
          cost: z.number().describe('In-game dollars the upgrade costs.'),
          affordable: z.boolean().describe("Whether the player's money covers it."),
          paybackHours: z.number().nullable().describe('Hours to earn it back; null: it never pays back.'),
          gainPerHour: z.number().describe('In-game dollars an hour it adds on this plot (negative: it earns less).'),
        })
        .nullable()
        .describe('The upgrade one level up; null at the top level.'),
      assumptions: z.array(z.string()).describe('What the figures assume where the game publishes no rule.'),
      ...pageOutput('trees of the ranking'),
    }),
  },
  tree_economics: {
    title: "One tree's economics",
    description:
      'What one tree earns and costs, worked out from its published figures: harvest value, profit per harvest ' +
      'and per hour on a plot, the cost of the upgrades to reach it and the hours its upgrade takes to pay back. ' +
      'The tree is found as find_record finds it (name, alias or level; the one nearest name when none is named ' +
      'so); a miss lists the nearest names.',
    input: z.strictObject({
      name: searchText('"giant sequoia"', 'list_records lists every tree').describe(
        'The tree\'s name or alias ("giant sequoia"), or its level as digits or a number.',
      ),
      plot,
    }),
    output: z.object({
      found: z.boolean(),
      match,
      version,
      plot: plotUsed,
      tree: treeSchema.nullable().describe('The tree, with every figure the game publishes for it; null on a miss.'),
      economics: economicsRow.nullable().describe('Its figures on the plot; null on a miss.'),
      suggestions: z.array(suggestionSchema).describe('On a miss, the nearest tree names; empty when found.'),
    }),
  },
  changes: {
    title: 'Data releases and their changes',
    description:
      'The data releases, newest first, each with its record counts and what it added, removed and changed ' +
      'against the release before it (each changed field from its old value to its new one). The changes come a ' +
      'page at a time (limit, and the nextCursor as cursor, for the next ones): a long release may span pages.',
    input: z.strictObject({
      since: releaseId(RELEASE_ID_WORDS)
        .optional()
        .describe(
          'A release id (YYYY-MM-DD, or YYYY-MM-DD-2 for the second of a day): only the releases after it; omit ' +
            'it for all.',
        ),
      ...paging('changes', DEFAULT_PAGE_LIMITS.changes),
    }),
    output: z.object({
      releases: z
        .array(releaseSummarySchema)
        .describe("The releases this page's changes belong to, each with this page's changes of it."),
      ...pageOutput('changes (records added, removed or changed)'),
    }),
  },
} as const;

export type ToolName = keyof typeof tools;
export const toolNames = Object.keys(tools) as ToolName[];

/** Whether `name` is one of the tools. */
export const isToolName = (name: string): name is ToolName => Object.hasOwn(tools, name);

/**
 * What is wrong with a tool's arguments, one clause an argument. They are one flat object
 * (the MCP server and the Discord app check that), so every issue but unknown keys is about the argument its path
 * starts with, and its message (the tool's schema words it) says what that argument expects.
 */
export function argumentIssues(error: z.ZodError, names: readonly string[]): string {
  return error.issues
    .map((issue) => {
      if (issue.code !== 'unrecognized_keys') return `${String(issue.path[0])}: ${issue.message}`;
      const plural = issue.keys.length > 1 ? 's' : '';
      return `unknown argument${plural} ${issue.keys.join(', ')} (the arguments are ${names.join(', ')})`;
    })
    .join('; ');
}
