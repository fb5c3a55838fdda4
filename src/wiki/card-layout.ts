// What a card shows and where, as the element tree satori lays out (card-render.ts rasterises
// it): a record's name, kind and level, its key figures (views.ts `card`) and its kind's first
// chart with the record marked, drawn from the same model as the page's chart (chart.ts); a
// release's id, date, notes and counts of changes. Light theme, in wiki.css's colours. Every
// text is at least MIN_CARD_FONT_SIZE, so a card stays readable shown 400 px wide.
import { CARD_HEIGHT, CARD_WIDTH } from '../contract/cards.ts';
import { kindFacts, type KindId } from '../schema/kind-ids.ts';
import type { ChartModel } from './chart.ts';
import { chartSvg } from './chart-svg.ts';
import type { ReleaseView } from './changes.ts';
import { cell, type KindCardSummary, labelOf, type RecordPage } from './model.ts';
import { kindTitle, SITE_NAME } from './site.ts';
import { type ContentOf, viewOf } from './views.ts';
import wikiCss from './wiki.css?raw';

/** An element as satori takes it (React's shape without React). */
export interface CardNode {
  type: string;
  props: {
    style?: Record<string, string | number>;
    children?: (CardNode | string)[] | CardNode | string;
    src?: string;
    width?: number;
    height?: number;
  };
}

/**
 * The smallest text on a card, in pixels at 1200 wide: 30, which is 10 px when a chat shows
 * the card 400 px wide (Discord's and Slack's previews are about that), the size of the
 * smallest text those apps print themselves (timestamps, 12 px, less their padding).
 */
export const MIN_CARD_FONT_SIZE = 30;

/** The light scheme's colours of wiki.css (its first `:root` block), by token name without the dashes. */
export function lightColours(css: string = wikiCss): Record<string, string> {
  const root = /:root\s*\{([^}]*)\}/.exec(css)?.[1] ?? '';
  return Object.fromEntries(
    [...root.matchAll(/--([\w-]+):\s*(#[0-9a-f]{3,8});/gi)].map(([, name, value]) => [name, value]),
  );
}

const colours = lightColours();
const colour = (token: string): string => {
  const value = colours[token];
  if (value === undefined) throw new Error(`wiki.css has no --${token} in its light scheme`);
  return value;
};

const node = (type: string, style: Record<string, string | number>, ...children: (CardNode | string)[]): CardNode => ({
  type,
  props: { style, children },
});
const box = (style: Record<string, string | number>, ...children: (CardNode | string)[]) =>
  node('div', { display: 'flex', ...style }, ...children);

/** A text cut at a word before `max` characters, with an ellipsis: a card has room for so much. */
export function clipped(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > max / 2 ? cut.slice(0, space) : cut).replace(/[\s,.;:·–-]+$/, '')}…`;
}

/** The frame of every card: the wiki's header band (its name, and what the card is of), then the body. */
function frame(label: string, body: CardNode): CardNode {
  return box(
    {
      flexDirection: 'column',
      width: CARD_WIDTH,
      height: CARD_HEIGHT,
      background: colour('bg'),
      color: colour('text'),
      fontFamily: 'Inter',
      fontSize: MIN_CARD_FONT_SIZE,
    },
    box(
      {
        height: 84,
        padding: '0 56px',
        alignItems: 'center',
        justifyContent: 'space-between',
        background: colour('header-bg'),
        color: colour('header-text'),
        fontSize: 34,
      },
      box({ fontWeight: 700 }, SITE_NAME),
      box({}, label),
    ),
    body,
  );
}

/** How wide a panel's border is, and how round its outer corners. */
const PANEL_BORDER = 2;
const PANEL_RADIUS = 14;

/**
 * A panel on the wiki's surface colour with a border: a box in the border's colour around a box
 * in the surface's, one border's width smaller and less round. Never CSS `border`: satori draws
 * that as a stroke clipped to the box, and resvg renders each clip path in a layer of its own
 * (some 13 M instructions a panel, measured: docs/cards.md#cost).
 */
function panel(style: Record<string, string | number>, ...children: (CardNode | string)[]): CardNode {
  return box(
    { flex: 1, padding: PANEL_BORDER, background: colour('border'), borderRadius: PANEL_RADIUS },
    box({ flex: 1, ...style, background: colour('surface'), borderRadius: PANEL_RADIUS - PANEL_BORDER }, ...children),
  );
}

/** A figure: its heading over its value, on the wiki's surface colour. */
function figureBox(label: string, value: string): CardNode {
  return panel(
    { flexDirection: 'column', justifyContent: 'space-between', padding: '14px 20px' },
    box({ color: colour('muted'), lineHeight: 1.15 }, clipped(label, 30)),
    box({ fontSize: 44, fontWeight: 700, marginTop: 6 }, clipped(value, 14)),
  );
}

/** The chart's first line and the record's mark: an SVG image of the plot alone (chart-svg.ts; drawn in place). */
function chartImage(chart: ChartModel, width: number, height: number): CardNode {
  const svg = chartSvg(chart, {
    width,
    height,
    grid: { colour: colour('grid'), width: 2 },
    mark: { colour: colour('highlight'), width: 6 },
    line: { colour: colour('chart-1'), width: 5 },
  });
  return { type: 'img', props: { src: `data:image/svg+xml,${encodeURIComponent(svg)}`, width, height } };
}

/** What the card's chart shows, in words: its title, and which line when it has more than one. */
export const cardChartTitle = (chart: ChartModel): string =>
  chart.series.length > 1 && chart.series[0] ? `${chart.title}: ${chart.series[0].label.toLowerCase()}` : chart.title;

/** A record's figures for its card: each key of the kind's `card`, headed and shown as the kind's table does. */
export function cardFigures<K extends KindId>(kind: K, data: ContentOf<K>): { label: string; value: string }[] {
  const view = viewOf(kind);
  return view.card.map((key) => ({ label: labelOf(view, key).label, value: cell(view, data, key).text }));
}

/** The card's chart with its title on the wiki's surface colour; an empty space for a kind without charts. */
function chartPanelOf(chart: ChartModel | undefined): CardNode {
  if (!chart) return box({ flex: 1 });
  return panel(
    { flexDirection: 'column', padding: '12px 18px' },
    box({ fontWeight: 700, color: colour('muted') }, clipped(cardChartTitle(chart), 34)),
    chartImage(chart, 540, 196),
  );
}

/** A card's name (clipped, smaller when long) over its tagline, beside its chart. */
function headingOf(title: string, tagline: string): CardNode {
  return box(
    { flexDirection: 'column', width: 470 },
    box({ fontSize: title.length > 16 ? 56 : 68, fontWeight: 700, lineHeight: 1.1 }, clipped(title, 34)),
    box({ fontSize: 36, color: colour('muted'), marginTop: 10 }, tagline),
  );
}

/** A record's card: name, level and kind, region, its figures and its kind's chart with it marked. */
export function recordCard(
  kind: KindId,
  page: Pick<RecordPage, 'title' | 'tagline' | 'region' | 'charts'>,
  figures: readonly { label: string; value: string }[],
): CardNode {
  const chart = page.charts[0];
  const heading = headingOf(page.title, page.region ? `${page.tagline} · ${clipped(page.region, 18)}` : page.tagline);
  const chartPanel = chartPanelOf(chart);
  return frame(
    kindTitle(kind),
    box(
      { flex: 1, flexDirection: 'column', padding: '30px 56px 40px' },
      box({ height: 262, gap: 40 }, heading, chartPanel),
      box({ flex: 1, gap: 20, marginTop: 24 }, ...figures.map((figure) => figureBox(figure.label, figure.value))),
    ),
  );
}

/** A kind's card, named by its listing and by the pages of its records past CARDS_PER_KIND. */
export function kindCard(kind: KindId, summary: KindCardSummary): CardNode {
  const tagline = `Every ${kindFacts[kind].noun} of the game`;
  return frame(
    kindTitle(kind),
    box(
      { flex: 1, flexDirection: 'column', padding: '30px 56px 40px' },
      box({ height: 262, gap: 40 }, headingOf(`All ${kind}`, tagline), chartPanelOf(summary.chart)),
      box(
        { flex: 1, gap: 20, marginTop: 24 },
        figureBox('Records', summary.records.toLocaleString('en-US')),
        figureBox('Lowest level', String(summary.lowestLevel)),
        figureBox('Highest level', String(summary.highestLevel)),
      ),
    ),
  );
}

/** What a kind's card shows, in words: the og:image:alt of its listing and of the records past CARDS_PER_KIND. */
export function kindCardAlt(kind: KindId, summary: KindCardSummary): string {
  const chartWords = summary.chart ? `; a chart of ${cardChartTitle(summary.chart).toLowerCase()} over them` : '';
  return (
    `Card of all ${kind}: ${summary.records.toLocaleString('en-US')} records, ` +
    `levels ${summary.lowestLevel} to ${summary.highestLevel}${chartWords}.`
  );
}

/** A release's card: its id, date and data version, its notes, and how many records it added, removed and changed. */
export function releaseCard(
  release: Pick<ReleaseView, 'id' | 'date' | 'version' | 'notes' | 'added' | 'removed' | 'changed'>,
): CardNode {
  const changedRecords = new Set(release.changed.map((row) => `${row.kind}/${row.title}/${row.level}`)).size;
  return frame(
    'Data release',
    box(
      { flex: 1, flexDirection: 'column', padding: '34px 56px 40px' },
      box({ fontSize: 68, fontWeight: 700, lineHeight: 1.1 }, `Release ${release.id}`),
      box(
        { fontSize: 34, color: colour('muted'), marginTop: 10 },
        `${release.date} · data version ${clipped(release.version, 16)}`,
      ),
      box({ fontSize: 36, marginTop: 22, lineHeight: 1.25 }, clipped(release.notes, 90)),
      box(
        { flex: 1, gap: 20, marginTop: 24, alignItems: 'flex-end' },
        figureBox('Records added', String(release.added.length)),
        figureBox('Records removed', String(release.removed.length)),
        figureBox('Records changed', String(changedRecords)),
      ),
    ),
  );
}

/** What a record's card shows, in words: the og:image:alt of its page. */
export function recordCardAlt(
  page: Pick<RecordPage, 'title' | 'tagline' | 'charts'>,
  figures: readonly { label: string; value: string }[],
): string {
  const named = page.title === page.tagline ? page.title : `${page.title}, ${page.tagline.toLowerCase()}`;
  const chart = page.charts[0];
  const figureWords = figures.map(({ label, value }) => `${label.toLowerCase()} ${value}`).join(', ');
  const chartWords = chart ? `; a chart of ${cardChartTitle(chart).toLowerCase()} with it marked` : '';
  return `Card of ${named}: ${figureWords}${chartWords}.`;
}

/** What a release's card shows, in words. */
export const releaseCardAlt = (release: Pick<ReleaseView, 'id' | 'date' | 'summary'>): string =>
  `Card of data release ${release.id} (${release.date}): ${release.summary}.`;
