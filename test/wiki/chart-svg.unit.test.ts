// A chart's SVG text (src/wiki/chart-svg.ts), the one markup the wiki's pages, the MCP record
// view and the link-preview cards draw a chart by.
import { join } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { expect, test } from 'vitest';
import { loadContent } from '../../src/build/content.ts';
import { projectDir } from '../../src/cli/project-dir.ts';
import { kinds, type KindId } from '../../src/schema/kinds.ts';
import { type ChartModel, lineChart } from '../../src/wiki/chart.ts';
import { chartSvg, type PlotOnly } from '../../src/wiki/chart-svg.ts';
import { recordPage } from '../../src/wiki/model.ts';
import type { ContentOf, WikiEntry } from '../../src/wiki/views.ts';

const content = loadContent(join(projectDir, 'content'));
const entriesOf = (kind: KindId): WikiEntry<KindId>[] =>
  content.entries[kind].map((entry) => ({ slug: entry.slug, data: entry.data as ContentOf<KindId> }));

const CARD: PlotOnly = {
  width: 540,
  height: 196,
  grid: { colour: '#e3e8dc', width: 2 },
  mark: { colour: '#e0a100', width: 6 },
  line: { colour: '#2e7d32', width: 5 },
};

/** A name that would be markup if written as it is. */
const HOSTILE = `Tom & "Jerry's" <b>tree</b>`;

/** A chart of two lines over four records, the third marked, with `name` in every text it has. */
const chartNamed = (name: string): ChartModel =>
  lineChart({
    id: `chart-${name}`,
    title: `${name} by level`,
    unit: 'count',
    scale: 'linear',
    xTitle: name,
    points: [1, 2, 3, 4].map((n) => ({ tick: `${name} ${n}`, name: `${name} ${n}` })),
    series: [
      { label: `${name} first`, values: [3, 9, 1, 4] },
      { label: `${name} second`, values: [1, 2, 3, 4] },
    ],
    highlight: { index: 2, label: name },
  });

/** What is left of `svg` once its tags, written well (every attribute quoted), are taken out: its texts. */
const textsOf = (svg: string) => svg.replace(/<\/?[a-z]+(?:\s[a-zA-Z][\w:-]*="[^"<>]*")*>/g, '\n');

/** Every real chart, as a record page draws it (its record marked). */
const realCharts = kinds.flatMap((kind) => {
  const entries = entriesOf(kind.id);
  return recordPage(kind.id, entries, 0).charts;
});

test('every text and attribute it writes is escaped: a name from content never becomes markup', () => {
  const chart = chartNamed(HOSTILE);
  for (const svg of [chartSvg(chart), chartSvg(chart, CARD)]) {
    expect(svg).not.toContain('<b>');
    const texts = textsOf(svg);
    expect(texts).not.toMatch(/[<>"']|&(?!(?:amp|lt|gt|quot|apos);)/);
  }
  // Read back as XML (the card's image must be XML to resvg), every name is what the content said.
  const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' });
  const { svg } = parser.parse(chartSvg(chart)) as { svg: Record<string, { '#text': string; id: string }> };
  expect(svg['title']).toEqual({ '#text': `${HOSTILE} by level`, id: `chart-${HOSTILE}-title` });
  expect(svg['desc']?.['#text']).toBe(chart.description);
  expect(() => parser.parse(chartSvg(chart, CARD))).not.toThrow();
  const texts = [...chartSvg(chart).matchAll(/<text [^>]*>([^<]*)<\/text>/g)].map((match) => match[1]);
  const unescaped = (text = '') => parser.parse(`<t>${text}</t>`).t;
  expect(texts.map(unescaped)).toEqual(expect.arrayContaining([HOSTILE, `${HOSTILE} 3`, `${HOSTILE} first`]));
});

test("the card's picture holds the plot alone: its grid, the first line and the record's mark, no words", () => {
  const chart = chartNamed('Oak');
  const card = chartSvg(chart, CARD);
  expect(card).toMatch(
    /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" viewBox="62 32 490 222" width="540" height="196"/,
  );
  expect(card).not.toMatch(/<(?:text|title|desc|circle|rect)\b/);
  expect(card).not.toContain('Oak');
  const paths = [...card.matchAll(/<path [^>]*\bd="([^"]*)"/g)].map((match) => match[1]);
  expect(paths).toEqual([chart.series[0]?.path]);
  expect(card).toMatch(/<path [^>]*stroke="#2e7d32" stroke-width="5"/);
  const marks = card.match(/<line [^>]*stroke="#e0a100" stroke-width="6"[^>]*>/g) ?? [];
  expect(marks).toHaveLength(1);
  expect(marks[0]).toContain(`x1="${chart.highlight?.x}" x2="${chart.highlight?.x}"`);
  expect(card.match(/<line [^>]*stroke="#e3e8dc"/g)).toHaveLength(chart.yTicks.length);
});

test('the same model gives the same text', () => {
  for (const chart of realCharts) {
    expect(chartSvg(structuredClone(chart))).toBe(chartSvg(chart));
    expect(chartSvg(structuredClone(chart), CARD)).toBe(chartSvg(chart, CARD));
  }
});

test('no chart has a style attribute (the MCP view allows its styles by hash only), nor a script', () => {
  expect(realCharts.length).toBeGreaterThan(kinds.length);
  for (const chart of realCharts)
    for (const svg of [chartSvg(chart), chartSvg(chart, CARD)]) expect(svg).not.toMatch(/\sstyle=|<script|\son\w+=/i);
});
