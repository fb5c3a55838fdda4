// What each wiki page shows, worked out from the records: plain strings and numbers that the
// .astro pages only lay out. Pure functions over the content, so the tests can check them.
import { treeEconomics, type TreeEconomics } from '../contract/economics.ts';
import { searchKey } from '../contract/search-key.ts';
import { kindFacts, type KindId } from '../schema/kind-ids.ts';
import { drawChart, prepareChart, type ChartModel, type PreparedChart } from './chart.ts';
import {
  type FieldFormat,
  fieldValue,
  type FigureRow,
  figureRow,
  recordFigures,
  sortKey,
} from '../contract/figures.ts';
import type { Unit } from '../contract/format.ts';
import { kindPagePath, kindTitle, PLANNER_PATH, recordPath } from './site.ts';
import { viewOf, type ContentOf, type KindView, type WikiEntry } from './views.ts';

export interface Cell {
  text: string;
  /** The exact value, where it differs from the text. */
  exact?: string;
  /** What the table sorts by: the number, or the text. */
  sort: string;
}

export interface KindTable {
  columns: { label: string; numeric: boolean; derived: boolean }[];
  rows: { title: string; href: string; cells: Cell[] }[];
  /** The column the rows come sorted by, ascending: the level (list order); -1 for none. */
  sortedColumn: number;
}

export type { FigureRow } from '../contract/figures.ts';

export interface RecordLink {
  href: string;
  title: string;
  /** "Level 68", or "Level 1 gift" where levels repeat. */
  position: string;
}

export interface RecordPage {
  title: string;
  /** "Level 69 tree". */
  tagline: string;
  /**
   * Its key figures in words, for search engines and link previews (the page's description):
   * "Oak Tree, a level 1 tree: growth time 1m, logs per harvest 10, …".
   */
  summary: string;
  region?: string;
  funfact?: string;
  aliases: string[];
  /** Text fields other than the fun fact: name and region. */
  texts: { label: string; text: string }[];
  figures: FigureRow[];
  derived: (FigureRow & { how: string })[];
  previous?: RecordLink;
  next?: RecordLink;
  charts: ChartModel[];
  /** What to pass as `search` to find this record through the API. */
  apiSearch: string;
  /** The planner's address, on the pages of the records it plans with (trees). */
  planner?: string;
  /** The search keys of the name and earlier names ("oaktree", "breadknife"), for the wiki's search ranking. */
  searchKeys: string[];
}

function fieldsOf<K extends KindId>(view: KindView<K>): [string, FieldFormat][] {
  return Object.entries<FieldFormat>(view.fields);
}

/** One figure of a record, by its field or derived key, as the kind's table shows it. */
export function cell<K extends KindId>(view: KindView<K>, data: ContentOf<K>, key: string): Cell {
  const field = fieldsOf(view).find(([name]) => name === key)?.[1];
  const derived = view.derived.find((figure) => figure.key === key);
  const unit: Unit | 'text' | undefined = field?.unit ?? derived?.unit;
  const value = derived ? derived.value(data) : fieldValue(data, key);
  if (unit === undefined || value === undefined) throw new Error(`The wiki view has no column "${key}"`);
  if (unit === 'text' || typeof value === 'string') return { text: String(value), sort: String(value) };
  const row = figureRow('', unit, value);
  return { text: row.shown, exact: row.exact === row.shown ? undefined : row.exact, sort: sortKey(value) };
}

/** The heading of a figure, by its field or derived key. */
export function labelOf<K extends KindId>(
  view: KindView<K>,
  key: string,
): { label: string; numeric: boolean; derived: boolean } {
  const field = fieldsOf(view).find(([name]) => name === key)?.[1];
  if (field) return { label: field.label, numeric: field.unit !== 'text', derived: false };
  const derived = view.derived.find((figure) => figure.key === key);
  if (derived) return { label: derived.label, numeric: true, derived: true };
  throw new Error(`The wiki view has no column "${key}"`);
}

export function kindTable<K extends KindId>(kind: K, entries: readonly WikiEntry<K>[]): KindTable {
  const view = viewOf(kind);
  return {
    columns: view.columns.map((key) => labelOf(view, key)),
    rows: entries.map((entry) => ({
      title: view.title(entry.data),
      href: recordPath(kind, entry.slug),
      cells: view.columns.map((key) => cell(view, entry.data, key)),
    })),
    sortedColumn: view.columns.indexOf('level'),
  };
}

/**
 * The kind's charts over all its records, worked out once per kind: scale, ticks, words and
 * a bounded number of points per line, so drawing them on each record's page costs the same
 * at 100 records as at 100,000.
 */
export function prepareKindCharts<K extends KindId>(kind: K, entries: readonly WikiEntry<K>[]): PreparedChart[] {
  const view = viewOf(kind);
  const byLevel = kindFacts[kind].uniqueLevels;
  const points = entries.map((entry) =>
    byLevel
      ? { tick: String(entry.data.level), name: `level ${entry.data.level}` }
      : { tick: view.title(entry.data), name: view.title(entry.data) },
  );
  return view.charts.map((chart, index) =>
    prepareChart({
      id: `${kind}-chart-${index}`,
      title: chart.title,
      unit: chart.unit,
      scale: chart.scale,
      xTitle: byLevel ? 'Level' : kindTitle(kind),
      points,
      series: chart.series.map((series) => ({
        label: series.label,
        values: entries.map((entry) => series.value(entry.data)),
      })),
    }),
  );
}

/** The kind's charts; `highlight` marks one record (on that record's page). */
export function kindCharts<K extends KindId>(
  kind: K,
  entries: readonly WikiEntry<K>[],
  highlight?: number,
  prepared: PreparedChart[] = prepareKindCharts(kind, entries),
): ChartModel[] {
  const highlighted = highlight === undefined ? undefined : entries[highlight];
  const mark =
    highlighted && highlight !== undefined
      ? { index: highlight, label: viewOf(kind).title(highlighted.data) }
      : undefined;
  return prepared.map((chart) => drawChart(chart, mark));
}

function link<K extends KindId>(kind: K, view: KindView<K>, entry: WikiEntry<K> | undefined): RecordLink | undefined {
  if (!entry) return undefined;
  return { href: recordPath(kind, entry.slug), title: view.title(entry.data), position: `Level ${entry.data.level}` };
}

/**
 * The trees' economics on a normal plot, worked out once for all of them (the cost to reach a
 * tree is a running total over the levels below it); undefined for the other kinds.
 */
export function prepareKindEconomics<K extends KindId>(
  kind: K,
  entries: readonly WikiEntry<K>[],
): TreeEconomics[] | undefined {
  if (kind !== 'trees') return undefined;
  return treeEconomics(entries.map((entry) => entry.data as ContentOf<'trees'>));
}

/** A tree's figures that span the levels below it: what reaching it costs and when that pays back. */
function ladderFigures(economics: TreeEconomics): (FigureRow & { how: string })[] {
  const payback = economics.upgradePaybackHours;
  const never = economics.level === 1 ? '— (level 1 is where the farm starts)' : 'never (it earns no more per hour)';
  return [
    {
      ...figureRow('Cost to reach', 'money', economics.costToReach),
      how: 'the upgrade costs of every tree from level 2 to this one',
    },
    {
      ...(payback === null
        ? { label: 'Upgrade payback (normal plot)', shown: never, exact: never }
        : figureRow('Upgrade payback (normal plot)', 'hours', payback)),
      how: 'upgrade cost ÷ the profit per hour it adds over the tree one level below',
    },
  ];
}

/** A record's figures in words, its level said once: "Knife, a level 2 cutter: cooldown 1m 9s, cost $1.12K, …". */
function recordSummary(title: string, tagline: string, figures: readonly FigureRow[]): string {
  const named = title === tagline ? title : `${title}, a ${tagline.toLowerCase()}`;
  const words = figures
    .filter((figure) => figure.label !== 'Level')
    .map((figure) => `${figure.label.toLowerCase()} ${figure.shown}`);
  return words.length === 0 ? `${named}.` : `${named}: ${words.join(', ')}.`;
}

/** "Level 69 tree". */
const taglineOf = (kind: KindId, level: number) => `Level ${level} ${kindFacts[kind].noun}`;
const regionOf = (data: object): string | undefined =>
  'plantingRegion' in data && typeof data.plantingRegion === 'string' ? data.plantingRegion : undefined;

/**
 * What a record's card shows of its page (card-layout.ts), as the page has it: its title,
 * tagline, region and first chart. Only that: at 10,000 trees the whole page model costs each
 * card a pass over every tree (the economics).
 */
export function recordCardPage<K extends KindId>(
  kind: K,
  entries: readonly WikiEntry<K>[],
  index: number,
  charts: PreparedChart[],
): Pick<RecordPage, 'title' | 'tagline' | 'region' | 'charts'> {
  const entry = entries[index];
  if (!entry) throw new Error(`No ${kind} record at position ${index}`);
  return {
    title: viewOf(kind).title(entry.data),
    tagline: taglineOf(kind, entry.data.level),
    region: regionOf(entry.data),
    charts: kindCharts(kind, entries, index, charts.slice(0, 1)),
  };
}

/** What a kind's card shows: how many records, their levels, and the kind's first chart (no record marked). */
export interface KindCardSummary {
  records: number;
  lowestLevel: number;
  highestLevel: number;
  chart: ChartModel | undefined;
}

/** The kind's card's summary (card-layout.ts's kindCard), from its records and prepared charts. */
export function kindCardSummary<K extends KindId>(
  kind: K,
  entries: readonly WikiEntry<K>[],
  charts: PreparedChart[],
): KindCardSummary {
  const levels = entries.map((entry) => entry.data.level);
  return {
    records: entries.length,
    lowestLevel: Math.min(...levels),
    highestLevel: Math.max(...levels),
    chart: kindCharts(kind, entries, undefined, charts.slice(0, 1))[0],
  };
}

/**
 * A record's page; `charts` are the kind's prepared charts and `economics` the trees'
 * (prepareKindEconomics), when the caller already has them.
 */
export function recordPage<K extends KindId>(
  kind: K,
  entries: readonly WikiEntry<K>[],
  index: number,
  charts: PreparedChart[] = prepareKindCharts(kind, entries),
  economics: readonly TreeEconomics[] | undefined = prepareKindEconomics(kind, entries),
): RecordPage {
  const view = viewOf(kind);
  const entry = entries[index];
  if (!entry) throw new Error(`No ${kind} record at position ${index}`);
  const data = entry.data;
  const { title, texts, figures, derived } = recordFigures(view, data);
  const ladder = economics?.[index];
  const tagline = taglineOf(kind, data.level);
  return {
    title,
    tagline,
    summary: recordSummary(title, tagline, figures),
    region: regionOf(data),
    funfact: 'funfact' in data ? data.funfact : undefined,
    aliases: 'aliases' in data ? (data.aliases ?? []) : [],
    texts,
    figures,
    derived: [...derived, ...(ladder ? ladderFigures(ladder) : [])],
    planner: ladder ? PLANNER_PATH : undefined,
    previous: link(kind, view, entries[index - 1]),
    next: link(kind, view, entries[index + 1]),
    charts: kindCharts(kind, entries, index, charts),
    apiSearch: 'name' in data ? data.name : String(data.level),
    searchKeys: [...('name' in data ? [data.name] : []), ...('aliases' in data ? (data.aliases ?? []) : [])].map(
      searchKey,
    ),
  };
}

/** Rows on one page of a kind's table: every real kind fits on one page; 10,000 trees make 50. */
export const ROWS_PER_PAGE = 200;
/** Page links on either side of the current one in a pager; the first and last are always there. */
const PAGER_REACH = 2;

export interface KindPageLink {
  number: number;
  href: string;
  /** The levels the page lists: "Levels 201–400", or "Level 1". */
  levels: string;
}

/** One page of a kind's listing: a run of its records in list order, and the way to the others. */
export interface KindListing<K extends KindId> extends KindPageLink {
  pageCount: number;
  entries: readonly WikiEntry<K>[];
  previous?: KindPageLink;
  next?: KindPageLink;
  /** The first page, the pages near this one and the last, in order; `gap` where pages are left out. */
  pager: (KindPageLink | 'gap')[];
}

/** The page of the kind's listing that holds the record at `index` of the list. */
export const listingPathOf = (kind: KindId, index: number, rowsPerPage = ROWS_PER_PAGE) =>
  kindPagePath(kind, Math.floor(index / rowsPerPage) + 1);

/** The kind's records split into pages of `rowsPerPage`, so no page grows with the number of records. */
export function kindListings<K extends KindId>(
  kind: K,
  entries: readonly WikiEntry<K>[],
  rowsPerPage = ROWS_PER_PAGE,
): KindListing<K>[] {
  const pageCount = Math.max(1, Math.ceil(entries.length / rowsPerPage));
  const links = Array.from({ length: pageCount }, (_unused, index): KindPageLink => {
    const low = entries[index * rowsPerPage]?.data.level;
    const high = entries[Math.min(entries.length, (index + 1) * rowsPerPage) - 1]?.data.level;
    return {
      number: index + 1,
      href: kindPagePath(kind, index + 1),
      levels: low === high ? `Level ${low ?? ''}` : `Levels ${low}–${high}`,
    };
  });
  return links.map((link, index) => ({
    ...link,
    pageCount,
    entries: entries.slice(index * rowsPerPage, (index + 1) * rowsPerPage),
    previous: links[index - 1],
    next: links[index + 1],
    pager: pagerAround(links, index),
  }));
}

function pagerAround(links: KindPageLink[], current: number): (KindPageLink | 'gap')[] {
  const near = Array.from({ length: 2 * PAGER_REACH + 1 }, (_unused, step) => current - PAGER_REACH + step);
  const shown = [...new Set([0, ...near, links.length - 1])]
    .filter((index) => index >= 0 && index < links.length)
    .sort((a, b) => a - b);
  return shown.flatMap((index, position) => {
    const link = links[index];
    if (!link) return [];
    const before = shown[position - 1];
    return before !== undefined && index - before > 1 ? ['gap' as const, link] : [link];
  });
}
