// What the wiki pages show, worked out from the real content.
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { projectDir } from '../../src/cli/project-dir.ts';
import { loadContent } from '../../src/build/content.ts';
import { apiFields, kindById, kinds, type KindId } from '../../src/schema/kinds.ts';
import { downsample, drawChart, lineChart, MAX_BUCKETS, prepareChart } from '../../src/wiki/chart.ts';
import {
  kindCardSummary,
  kindCharts,
  kindListings,
  kindTable,
  prepareKindCharts,
  recordPage,
  ROWS_PER_PAGE,
} from '../../src/wiki/model.ts';
import { costToReach, harvestValue, logsPerMinute, treeEconomics } from '../../src/contract/economics.ts';
import { exact, formatDuration, formatMoney } from '../../src/contract/format.ts';
import { viewOf, type ContentOf, type FieldFormat, type WikiEntry } from '../../src/wiki/views.ts';

const content = loadContent(join(projectDir, 'content'));
/** The content loader's entries are the wiki's entries: a slug and the validated data. */
const entriesOf = <K extends KindId>(kind: K): WikiEntry<K>[] =>
  content.entries[kind].map((entry) => ({ slug: entry.slug, data: entry.data as ContentOf<K> }));
const pageOf = <K extends KindId>(kind: K, slug: string) => {
  const entries = entriesOf(kind);
  return recordPage(
    kind,
    entries,
    entries.findIndex((entry) => entry.slug === slug),
  );
};

describe('record pages', () => {
  test('every API field is shown: figures with both forms, words as text, the fun fact as a call-out', () => {
    for (const kind of kinds) {
      const page = pageOf(kind.id, entriesOf(kind.id)[0]?.slug ?? '');
      const labels = new Map(
        Object.entries<FieldFormat>(viewOf(kind.id).fields).map(([field, format]) => [field, format.label]),
      );
      const expected = apiFields(kind)
        .filter((field) => field !== 'funfact')
        .map((field) => labels.get(field));
      const shown = [...page.texts, ...page.figures].map((row) => row.label);
      expect(shown.sort(), kind.id).toEqual(expected.sort());
      expect(page.funfact !== undefined, kind.id).toBe(apiFields(kind).includes('funfact'));
    }
  });

  test('a figure is shown as in the game and exactly', () => {
    const page = pageOf('trees', 'oak-tree');
    expect(page.figures).toContainEqual({ label: 'Upgrade cost', shown: '$134.108M', exact: '$134,107,523' });
    expect(page.figures).toContainEqual({ label: 'Growth time', shown: '7m 27s', exact: '447 s' });
  });

  test('a tree shows its fun fact and region', () => {
    const page = pageOf('trees', 'oak-tree');
    expect(page.funfact).toMatch(/acorns/);
    expect(page.region).toBe('North America');
  });

  test('aliases are shown', () => expect(pageOf('cutters', 'knife').aliases).toEqual(['Bread Knife']));

  test("a tree's harvest value is derived as log count × log value", () => {
    const oak = entriesOf('trees').find((entry) => entry.slug === 'oak-tree');
    expect(oak && harvestValue(oak.data)).toBe(3_284 * 93_741);
    expect(pageOf('trees', 'oak-tree').derived).toContainEqual(
      expect.objectContaining({ label: 'Harvest value', exact: '$307,845,444' }),
    );
  });

  test("a vehicle's logs per minute are derived from capacity and cooldown", () => {
    const wagon = entriesOf('vehicles')[0];
    expect(wagon && logsPerMinute(wagon.data)).toBe(16);
  });

  test('every derived figure says how it is worked out', () => {
    const how: Record<KindId, [label: string, how: string][]> = {
      trees: [
        ['Harvest value', 'logs per harvest × log value'],
        ['Profit per harvest', 'harvest value − sapling cost (one sapling replants it)'],
        [
          'Profit per hour (normal plot)',
          'profit per harvest × 3600 ÷ growth time in seconds; a faster plot multiplies it by its speed ÷ 100%',
        ],
        ['Value per minute of growth', 'harvest value ÷ growth time in minutes'],
        ['Sapling return', 'harvest value ÷ sapling cost: one harvest pays for this many saplings'],
        ['Upgrade payback (harvests)', 'upgrade cost ÷ harvest value'],
        ['Cost to reach', 'the upgrade costs of every tree from level 2 to this one'],
        ['Upgrade payback (normal plot)', 'upgrade cost ÷ the profit per hour it adds over the tree one level below'],
      ],
      cutters: [
        ['Average efficiency', 'midpoint of the efficiency range'],
        ['Cuts per minute', '60 ÷ cooldown in seconds'],
        ['Share of a tree’s logs cut per minute', 'average efficiency × cuts per minute'],
        ['Cost per efficiency point', 'cost ÷ average efficiency'],
      ],
      gifts: [
        ['Average money', 'midpoint of the money range'],
        ['Average logs', 'midpoint of the logs range'],
      ],
      plots: [
        ['Speed over normal', 'growth speed − 100%'],
        ['Growth time multiplier', '100% ÷ growth speed: multiply a tree’s growth time by it'],
        ['Cost per percent of speed', 'cost ÷ growth speed'],
      ],
      storages: [['Cost per log of capacity', 'cost ÷ capacity']],
      vehicles: [
        ['Logs delivered per minute', 'capacity × 60 ÷ cooldown in seconds'],
        ['Cost per log per minute', 'cost ÷ logs delivered per minute'],
      ],
    };
    for (const kind of kinds) {
      const derived = pageOf(kind.id, entriesOf(kind.id)[0]?.slug ?? '').derived;
      expect({ kind: kind.id, how: derived.map((figure) => [figure.label, figure.how]) }).toEqual({
        kind: kind.id,
        how: how[kind.id],
      });
    }
  });

  test('a derived figure is worked out from the record: the first tree, $714 a harvest in 1 minute', () => {
    // African Juniper: 119 logs × $6, grown in 60 s, sapling $69.
    const derived = pageOf('trees', entriesOf('trees')[0]?.slug ?? '').derived;
    expect(derived.map((figure) => figure.exact)).toEqual([
      '$714',
      '$645',
      '$38,700',
      '$714',
      '×10.35',
      '0',
      '$0',
      '— (level 1 is where the farm starts)',
    ]);
  });

  test("a tree's page shows the economics module's cost to reach and upgrade payback, exact and as in game", () => {
    const trees = entriesOf('trees');
    const oak = trees.findIndex((entry) => entry.slug === 'oak-tree');
    const economics = treeEconomics(trees.map((entry) => entry.data))[oak];
    const derived = pageOf('trees', 'oak-tree').derived;
    const row = (label: string) => derived.find((figure) => figure.label === label);
    expect(economics?.costToReach).toBe(
      costToReach(
        trees.map((entry) => entry.data),
        69,
      ),
    );
    expect(row('Cost to reach')).toMatchObject({
      shown: formatMoney(economics?.costToReach ?? 0),
      exact: `$${(economics?.costToReach ?? 0).toLocaleString('en-US')}`,
    });
    expect(row('Upgrade payback (normal plot)')?.shown).toBe(
      formatDuration((economics?.upgradePaybackHours ?? 0) * 3600),
    );
    expect(row('Profit per hour (normal plot)')?.exact).toBe(exact('money', economics?.profitPerHour ?? 0));
    expect(pageOf('trees', 'oak-tree').planner).toBe('/planner/');
    expect(pageOf('cutters', 'knife').planner).toBeUndefined();
  });

  test('previous and next link the neighbours in list order', () => {
    const [first, second] = entriesOf('gifts');
    const firstPage = recordPage('gifts', entriesOf('gifts'), 0);
    expect(firstPage.previous).toBeUndefined();
    expect(firstPage.next?.href).toBe(`/gifts/${second?.slug}/`);
    const last = recordPage('trees', entriesOf('trees'), entriesOf('trees').length - 1);
    expect(last.next).toBeUndefined();
    expect(first?.slug).toBe('small');
  });

  test("a record's summary names it, its level once and each figure as the game shows it", () => {
    expect(pageOf('cutters', 'knife').summary).toBe(
      'Knife, a level 2 cutter: cooldown 1m 9s, cost $1.12K, efficiency 20%–30%.',
    );
    expect(pageOf('plots', 'level-3').summary).toBe('Level 3 plot: cost $2.993K, growth speed 104%.');
    const oak = pageOf('trees', 'oak-tree');
    expect(oak.summary).toMatch(/^Oak Tree, a level \d+ tree: growth time /);
    for (const figure of oak.figures.filter((row) => row.label !== 'Level'))
      expect(oak.summary).toContain(`${figure.label.toLowerCase()} ${figure.shown}`);
  });

  test('plots, which have no names, are titled by level', () =>
    expect(pageOf('plots', 'level-3').title).toBe('Level 3 plot'));
});

describe('kind tables', () => {
  test('one row per record, in list order, each linking to its page', () => {
    for (const kind of kinds) {
      const table = kindTable(kind.id, entriesOf(kind.id));
      expect(table.rows.map((row) => row.href)).toEqual(
        entriesOf(kind.id).map((entry) => `/${kind.id}/${entry.slug}/`),
      );
      for (const row of table.rows) expect(row.cells).toHaveLength(table.columns.length);
    }
  });

  test('numeric cells sort by their exact number', () => {
    const table = kindTable('trees', entriesOf('trees'));
    const column = table.columns.findIndex((header) => header.label === 'Upgrade cost');
    expect(table.rows.at(-1)?.cells[column]).toEqual({
      text: '$23.62B',
      exact: '$23,619,637,994',
      sort: '23619637994',
    });
  });

  test('a table says it comes sorted by level, the list order', () => {
    for (const kind of kinds) {
      const table = kindTable(kind.id, entriesOf(kind.id));
      expect(table.columns[table.sortedColumn]?.label, kind.id).toBe('Level');
    }
  });

  test('derived columns are marked as derived', () => {
    const table = kindTable('trees', entriesOf('trees'));
    expect(table.columns.find((column) => column.label === 'Harvest value')?.derived).toBe(true);
    expect(table.columns.find((column) => column.label === 'Log value')?.derived).toBe(false);
  });
});

describe('charts', () => {
  test('every kind has its charts, each with its lines, a description and a caption', () => {
    const expected: Record<KindId, [title: string, lines: number][]> = {
      trees: [
        ['Money by level', 3],
        ['Growth time by level', 1],
      ],
      cutters: [
        ['Cost by level', 1],
        ['Efficiency by level', 2],
      ],
      gifts: [['Money by gift', 2]],
      plots: [
        ['Cost by level', 1],
        ['Growth speed by level', 1],
      ],
      storages: [
        ['Cost by level', 1],
        ['Capacity by level', 1],
      ],
      vehicles: [
        ['Cost by level', 1],
        ['Logs delivered per minute by level', 1],
      ],
    };
    for (const kind of kinds) {
      const charts = kindCharts(kind.id, entriesOf(kind.id));
      expect({ kind: kind.id, charts: charts.map((chart) => [chart.title, chart.series.length]) }).toEqual({
        kind: kind.id,
        charts: expected[kind.id],
      });
      for (const chart of charts) {
        expect(chart.description).toContain(chart.caption);
        // One point per record (a move to the first, a line to each other), but for the upgrade
        // cost of level 1, which is $0 and left off the log scale.
        for (const series of chart.series) {
          const points = entriesOf(kind.id).length - (series.label === 'Upgrade cost' ? 1 : 0);
          expect({ line: series.label, points: series.path.match(/[ML]/g)?.length }).toEqual({
            line: series.label,
            points,
          });
        }
      }
    }
  });

  test('the caption says where each line starts and ends', () => {
    const [money] = kindCharts('trees', entriesOf('trees'));
    expect(money?.caption).toContain('Upgrade cost goes from $11.5K (level 2) to $23.62B (level 106).');
  });

  test("a record page's chart caption starts with that record's own figures", () => {
    const [cost] = pageOf('cutters', 'knife').charts;
    expect(cost?.caption).toMatch(/^Knife \(level 2\): cost \$1\.12K\. Cost goes from/);
  });

  test('a short series is described value by value; a long one by where it starts and ends', () => {
    const [cutterCost] = kindCharts('cutters', entriesOf('cutters'));
    expect(cutterCost?.description).toContain('Cost: $249 (level 1), $1.12K (level 2), $5.042K (level 3),');
    const [, growthTime] = kindCharts('trees', entriesOf('trees'));
    expect(growthTime?.description).toContain('Growth time goes from 1m (level 1) to 22m 16s (level 106).');
    expect(growthTime?.description).not.toContain('Growth time: 1m (level 1),');
  });

  test('the caption names the highest and lowest values of a line that turns', () => {
    const chart = lineChart({
      id: 'c',
      title: 'T',
      unit: 'count',
      scale: 'linear',
      xTitle: 'Level',
      points: [1, 2, 3, 4].map((n) => ({ tick: `${n}`, name: `level ${n}` })),
      series: [{ label: 'Logs', values: [3, 9, 1, 4] }],
    });
    expect(chart.caption).toBe('Logs goes from 3 (level 1) to 4 (level 4), highest 9 (level 2), lowest 1 (level 3).');
  });

  test('a log scale leaves out zero instead of drawing it', () => {
    const chart = lineChart({
      id: 'c',
      title: 'T',
      unit: 'money',
      scale: 'log',
      xTitle: 'Level',
      points: [1, 2, 3].map((n) => ({ tick: `${n}`, name: `level ${n}` })),
      series: [{ label: 'Cost', values: [0, 10, 100] }],
    });
    expect(chart.series[0]?.path.match(/[ML]/g)).toEqual(['M', 'L']);
  });

  test('a record page marks its record on the chart', () => {
    const page = pageOf('trees', 'oak-tree');
    expect(page.charts[0]?.highlight?.label).toBe('Oak Tree');
  });

  test('kinds whose records share levels are charted by record, not by level', () => {
    const [chart] = kindCharts('gifts', entriesOf('gifts'));
    expect(kindById('gifts')?.uniqueLevels).toBe(false);
    expect(chart?.xTicks.map((tick) => tick.label)).toEqual(['Small gift', 'Medium gift', 'Large gift']);
  });
});

/** `count` trees of levels 1, 2, …, each a copy of the first real tree with its own slug, name and level. */
function syntheticTrees(count: number): WikiEntry<'trees'>[] {
  const [model] = entriesOf('trees');
  if (!model) throw new Error('no real tree to copy');
  return Array.from({ length: count }, (_unused, index) => ({
    slug: `tree-${index + 1}`,
    data: { ...model.data, name: `Tree ${index + 1}`, level: index + 1 },
  }));
}

const pointsOf = (path = '') => path.match(/[ML]/g)?.length ?? 0;

describe('charts of many records', () => {
  const ramp = (count: number) => Array.from({ length: count }, (_unused, index) => index);
  const rampChart = (count: number) =>
    prepareChart({
      id: 'c',
      title: 'T',
      unit: 'count',
      scale: 'linear',
      xTitle: 'Level',
      points: ramp(count).map((index) => ({ tick: `${index + 1}`, name: `level ${index + 1}` })),
      series: [{ label: 'Value', values: ramp(count) }],
    });

  test('a line of a few hundred points is drawn from every point', () => {
    expect(downsample(ramp(106), MAX_BUCKETS)).toEqual(ramp(106));
  });

  test('a line of 10,000 points is drawn from at most two points per bucket, and its ends', () => {
    const chart = drawChart(rampChart(10_000));
    expect(pointsOf(chart.series[0]?.path)).toBeLessThanOrEqual(2 * MAX_BUCKETS + 2);
    expect(pointsOf(chart.series[0]?.path)).toBeGreaterThan(MAX_BUCKETS);
    // The first point is at the left edge of the plot, the last at its right edge.
    expect(chart.series[0]?.path).toMatch(/^M70 246L/);
    expect(chart.series[0]?.path).toMatch(/L544 \S+$/);
  });

  test('downsampling keeps every peak and trough, however narrow', () => {
    const values = Array.from({ length: 50_000 }, () => 100);
    values[12_345] = 1_000_000;
    values[40_001] = -5;
    values[40_002] = 7;
    const kept = downsample(values, MAX_BUCKETS);
    expect(kept).toContain(12_345);
    expect(kept).toContain(40_001);
    expect(kept.length).toBeLessThanOrEqual(2 * MAX_BUCKETS + 2);
    expect([...kept].sort((a, b) => a - b)).toEqual(kept);
  });

  test("a record page's chart passes exactly through that record's point", () => {
    // Level 5,051 of 10,000 sits inside a bucket (5,000-5,062), so downsampling alone drops it.
    // x: 70 + 5050 / 9999 × 474 = 309.4; y: the axis runs 0-10,000 over 246-40, so 246 - 0.5050 × 206 = 142.
    const chart = rampChart(10_000);
    expect(drawChart(chart).series[0]?.path).not.toContain('309.4 142');
    const marked = drawChart(chart, { index: 5050, label: 'Tree 5051' });
    expect(marked.series[0]?.path).toContain('L309.4 142L');
    expect(marked.highlight).toEqual({ x: 309.4, label: 'Tree 5051', anchor: 'end' });
  });

  test('record pages of 10,000 trees draw charts of a bounded size', () => {
    const trees = syntheticTrees(10_000);
    const page = recordPage('trees', trees, 4321);
    for (const chart of page.charts) {
      for (const series of chart.series) expect(pointsOf(series.path)).toBeLessThanOrEqual(2 * MAX_BUCKETS + 3);
      expect(chart.highlight?.label).toBe('Tree 4322');
    }
  });
});

describe('kind listings', () => {
  const trees = syntheticTrees(2 * ROWS_PER_PAGE * 5 + 17);
  const listings = kindListings('trees', trees);

  test('every real kind fits on its one page, /<kind>/', () => {
    for (const kind of kinds) {
      const pages = kindListings(kind.id, entriesOf(kind.id));
      expect(pages.map((page) => page.href)).toEqual([`/${kind.id}/`]);
      expect(pages[0]?.entries).toHaveLength(entriesOf(kind.id).length);
    }
  });

  test('the pages list every record once, in list order, at most ROWS_PER_PAGE each', () => {
    expect(listings).toHaveLength(11);
    expect(listings.flatMap((page) => page.entries.map((entry) => entry.slug))).toEqual(
      trees.map((entry) => entry.slug),
    );
    for (const page of listings) expect(page.entries.length).toBeLessThanOrEqual(ROWS_PER_PAGE);
    expect(listings.at(-1)?.entries).toHaveLength(17);
  });

  test("the kind's card counts every record past the first pages, its levels, and marks none on its chart", () => {
    const summary = kindCardSummary('trees', trees, prepareKindCharts('trees', trees));
    expect(summary).toMatchObject({ records: trees.length, lowestLevel: 1, highestLevel: trees.length });
    expect(summary.chart?.highlight).toBeUndefined();
  });

  test('following Next from the kind page reaches every page', () => {
    const byHref = new Map(listings.map((page) => [page.href, page]));
    const seen: string[] = [];
    for (let page = byHref.get('/trees/'); page; page = page.next && byHref.get(page.next.href)) seen.push(page.href);
    expect(seen).toEqual(['/trees/', ...Array.from({ length: 10 }, (_unused, index) => `/trees/page/${index + 2}/`)]);
  });

  test('each page links its neighbours and says which levels it lists', () => {
    const third = listings[2];
    expect(third?.href).toBe('/trees/page/3/');
    expect(third?.levels).toBe(`Levels ${2 * ROWS_PER_PAGE + 1}–${3 * ROWS_PER_PAGE}`);
    expect(third?.previous?.href).toBe('/trees/page/2/');
    expect(third?.next?.href).toBe('/trees/page/4/');
    expect(listings[0]?.previous).toBeUndefined();
    expect(listings.at(-1)?.next).toBeUndefined();
  });

  test('the pager shows the first, the last and two on each side of the current page', () => {
    const numbers = (index: number) =>
      listings[index]?.pager.map((link) => (link === 'gap' ? '…' : String(link.number))).join(' ');
    expect(numbers(0)).toBe('1 2 3 … 11');
    expect(numbers(5)).toBe('1 … 4 5 6 7 8 … 11');
    expect(numbers(3)).toBe('1 2 3 4 5 6 … 11');
    expect(numbers(10)).toBe('1 … 9 10 11');
  });
});
