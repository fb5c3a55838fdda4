// A chart (chart.ts's ChartModel) as SVG text: the one markup of a chart. The wiki's pages write
// it into their figure (components/Chart.astro), the MCP record view parses it into its own
// (src/apps/mcp/views/chart-svg.ts), and a record's card draws its plot alone as an image
// (card-layout.ts). The pages and the view colour it by class from wiki.css; the card, an image
// with no style sheet, by strokes written on its shapes. Never a style attribute: the MCP view's
// Content-Security-Policy refuses them. Every text and attribute is escaped (names come from content).
import type { ChartModel } from './chart.ts';
import { escapeXml } from './markup.ts';

/** A stroke written on the shape itself. */
export interface Stroke {
  colour: string;
  width: number;
}

/**
 * The card's picture of a chart: the plot alone stretched to `width` x `height`, its grid, the
 * record's mark and the first line only; no words (title, ticks, legend), no dots.
 */
export interface PlotOnly {
  width: number;
  height: number;
  grid: Stroke;
  /** The line at the record the chart marks. */
  mark: Stroke;
  /** The chart's first line. */
  line: Stroke;
}

/** Room around the plot in the card's picture, so the strokes along its edges are not cut off. */
const PLOT_MARGIN = 8;

type Attributes = Record<string, string | number>;
/** An element's child: an element's text, or a list of them, which stand side by side. */
type Child = string | readonly string[];

/**
 * An element, with `content` its text or its children: each child after a space, as the wiki's
 * template (Chart.astro) wrote them before this function did, so its pages keep their bytes.
 */
function element(tag: string, attributes: Attributes, content: string | readonly Child[] = []): string {
  const written = Object.entries(attributes)
    .map(([name, value]) => ` ${name}="${escapeXml(String(value))}"`)
    .join('');
  const inner =
    typeof content === 'string'
      ? escapeXml(content)
      : content.length === 0
        ? ''
        : `${content.map((child) => ` ${typeof child === 'string' ? child : child.join('')}`).join('')} `;
  return `<${tag}${written}>${inner}</${tag}>`;
}

/** The stroke of a shape on the card; none on the pages (wiki.css draws them). */
const painted = (stroke: Stroke | undefined): Attributes =>
  stroke
    ? {
        fill: 'none',
        stroke: stroke.colour,
        'stroke-width': stroke.width,
        'vector-effect': 'non-scaling-stroke',
        'stroke-linecap': 'round',
      }
    : {};

/** The chart's SVG as the wiki's pages show it, or with `plotOnly` as its record's card does. */
export function chartSvg(chart: ChartModel, plotOnly?: PlotOnly): string {
  if (!plotOnly)
    return element(
      'svg',
      {
        viewBox: `0 0 ${chart.width} ${chart.height}`,
        role: 'img',
        'aria-labelledby': `${chart.id}-title ${chart.id}-desc`,
      },
      [
        element('title', { id: `${chart.id}-title` }, chart.title),
        element('desc', { id: `${chart.id}-desc` }, chart.description),
        grid(chart),
        xAxis(chart),
        mark(chart),
        chart.series.map((_series, index) => line(chart, index)),
        legend(chart),
      ],
    );
  const { plot } = chart;
  const viewBox = [
    plot.left - PLOT_MARGIN,
    plot.top - PLOT_MARGIN,
    plot.right - plot.left + 2 * PLOT_MARGIN,
    plot.bottom - plot.top + 2 * PLOT_MARGIN,
  ].join(' ');
  return element(
    'svg',
    {
      xmlns: 'http://www.w3.org/2000/svg',
      viewBox,
      width: plotOnly.width,
      height: plotOnly.height,
      preserveAspectRatio: 'none',
    },
    [grid(chart, plotOnly), mark(chart, plotOnly), line(chart, 0, plotOnly)],
  );
}

/** A line across the plot at each of the y axis's ticks, labelled on the pages. */
function grid(chart: ChartModel, plotOnly?: PlotOnly): string {
  const { plot } = chart;
  const rows = chart.yTicks.map((tick) => {
    const rule = element('line', { x1: plot.left, x2: plot.right, y1: tick.y, y2: tick.y, ...painted(plotOnly?.grid) });
    const label = { x: plot.left - 8, y: tick.y, 'text-anchor': 'end', 'dominant-baseline': 'middle' };
    return element('g', {}, plotOnly ? [rule] : [rule, element('text', label, tick.label)]);
  });
  return element('g', { class: 'grid axis' }, [rows]);
}

/** The x axis's tick labels and its title. */
function xAxis(chart: ChartModel): string {
  const { plot } = chart;
  const ticks = chart.xTicks.map((tick) =>
    element('text', { x: tick.x, y: plot.bottom + 18, 'text-anchor': 'middle' }, tick.label),
  );
  const title = { x: (plot.left + plot.right) / 2, y: chart.height - 4, 'text-anchor': 'middle' };
  return element('g', { class: 'axis' }, [ticks, element('text', title, chart.xTitle)]);
}

/** The marked record's line down the plot, named beside it on the pages; nothing when none is marked. */
function mark(chart: ChartModel, plotOnly?: PlotOnly): string {
  const { highlight, plot } = chart;
  if (!highlight) return '';
  const rule = element('line', {
    x1: highlight.x,
    x2: highlight.x,
    y1: plot.top,
    y2: plot.bottom,
    ...painted(plotOnly?.mark),
  });
  const name = element(
    'text',
    { x: highlight.x + (highlight.anchor === 'start' ? 6 : -6), y: plot.top + 12, 'text-anchor': highlight.anchor },
    highlight.label,
  );
  return element('g', { class: 'highlight' }, plotOnly ? [rule] : [rule, name]);
}

/** The chart's line at `index`, with a dot at each point on the pages. */
function line(chart: ChartModel, index: number, plotOnly?: PlotOnly): string {
  const series = chart.series[index];
  if (!series) return '';
  const path = element('path', { class: 'line', d: series.path, ...painted(plotOnly?.line) });
  const dots = series.dots.map((dot) => element('circle', { cx: dot.x, cy: dot.y, r: 3.5 }));
  return element('g', { class: `series-${index}` }, plotOnly ? [path] : [path, dots]);
}

/** Each line's name above the plot, side by side, each entry as wide as its label. */
function legend(chart: ChartModel): string {
  let left = chart.plot.left;
  const entries = chart.series.map((series, index) => {
    const entry = element('g', { class: `series-${index}` }, [
      element('rect', { x: left, y: 10, width: 18, height: 6, rx: 3 }),
      element('text', { x: left + 24, y: 13, 'dominant-baseline': 'middle' }, series.label),
    ]);
    left += series.label.length * 8 + 40;
    return entry;
  });
  return element('g', { class: 'legend' }, [entries]);
}
