// Line charts drawn at build time: this module works out the geometry and the words (title,
// description, caption); chart-svg.ts writes the SVG. No chart code reaches the wiki's browser
// (the MCP record view draws its charts in the host's frame).
// The words carry the figures, for whoever cannot see the lines: where each line starts and
// ends and its peaks, the highlighted record's values, and every value of a short series.
import { shown, type Unit } from '../contract/format.ts';

export interface ChartPoint {
  /** Short label under the axis: "12". */
  tick: string;
  /** The point in words, for the caption: "level 12", "small gift". */
  name: string;
}

export interface LineChartInput {
  /** Unique on its page: the SVG's title and description ids derive from it. */
  id: string;
  title: string;
  unit: Unit;
  scale: 'log' | 'linear';
  xTitle: string;
  points: ChartPoint[];
  series: { label: string; values: number[] }[];
  /** A point to mark, such as the record whose page shows the chart. */
  highlight?: { index: number; label: string };
}

export interface ChartModel {
  id: string;
  title: string;
  description: string;
  caption: string;
  width: number;
  height: number;
  plot: { left: number; top: number; right: number; bottom: number };
  xTitle: string;
  xTicks: { x: number; label: string }[];
  yTicks: { y: number; label: string }[];
  series: { label: string; path: string; dots: { x: number; y: number }[] }[];
  highlight?: { x: number; label: string; anchor: 'start' | 'end' };
}

const WIDTH = 560;
const HEIGHT = 290;
const PLOT = { left: 70, top: 40, right: WIDTH - 16, bottom: HEIGHT - 44 };
/** Series with this many points or fewer get a dot at each point, and every value in words. */
const MAX_DOTTED_POINTS = 12;
const MAX_X_TICKS = 8;
/**
 * A line of more points than this is downsampled to the extremes of as many runs (at most two
 * points each): about one run per pixel column of the plot, so it looks the same.
 */
export const MAX_BUCKETS = 160;
/** Tick every so many points: round levels (1, 20, 40…) read better than 1, 12, 23…. */
const X_TICK_STEPS = [1, 2, 5, 10, 20, 25, 50, 100];
/** Steps that read well as durations: seconds, then whole minutes. */
const SECOND_STEPS = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600];

/**
 * A chart ready to draw, worked out once per kind: the scale, the ticks, the words, and for
 * each series the points it keeps. Drawing it for one record's page adds that record alone.
 */
export interface PreparedChart {
  id: string;
  title: string;
  unit: Unit;
  xTitle: string;
  points: readonly ChartPoint[];
  /** How many points the x axis spans (before downsampling). */
  count: number;
  xTicks: ChartModel['xTicks'];
  yTicks: ChartModel['yTicks'];
  series: { label: string; values: readonly number[]; kept: readonly number[] }[];
  scale: 'log' | 'linear';
  fraction: (value: number) => number;
  /** The words that do not depend on a highlighted record: "Line chart of …", each line's sentence, every value. */
  words: { opening: string; lines: string[]; everyValue: string[] };
}

export function lineChart(input: LineChartInput): ChartModel {
  return drawChart(prepareChart(input), input.highlight);
}

export function prepareChart(input: Omit<LineChartInput, 'highlight'>): PreparedChart {
  const values = input.series
    .flatMap((series) => series.values)
    .filter((value) => input.scale === 'linear' || value > 0);
  const scale = input.scale === 'log' ? logScale(values) : linearScale(values, input.unit);
  const count = input.points.length;
  const tickEvery = X_TICK_STEPS.find((step) => count / step <= MAX_X_TICKS) ?? Math.ceil(count / MAX_X_TICKS);
  const xTicks = input.points.flatMap((point, index) =>
    index === 0 || (index + 1) % tickEvery === 0 ? [{ x: xOf(index, count), label: point.tick }] : [],
  );
  const lines = input.series.map((line) => line.label.toLowerCase()).join(', ');
  const scaleWords = input.scale === 'log' ? ', on a logarithmic scale where each grid line is a power of ten' : '';
  return {
    id: input.id,
    title: input.title,
    unit: input.unit,
    xTitle: input.xTitle,
    points: input.points,
    count,
    xTicks,
    yTicks: scale.ticks.map((value) => ({ y: yOf(scale.fraction, value), label: shown(input.unit, value) })),
    series: input.series.map((line) => ({
      label: line.label,
      values: line.values,
      kept: downsample(line.values, MAX_BUCKETS),
    })),
    scale: input.scale,
    fraction: scale.fraction,
    words: {
      opening: `Line chart of ${lines} for ${count} ${input.xTitle === 'Level' ? 'levels' : 'records'}${scaleWords}.`,
      lines: input.series.map((line) => describeSeries(line, input)),
      everyValue: count <= MAX_DOTTED_POINTS ? input.series.map((line) => listValues(line, input)) : [],
    },
  };
}

/** The chart as drawn: its kept points, plus the point of `highlight` exactly, marked. */
export function drawChart(chart: PreparedChart, highlight?: { index: number; label: string }): ChartModel {
  const { count } = chart;
  const series = chart.series.map((line) => {
    let path = '';
    let penDown = false;
    const dots: { x: number; y: number }[] = [];
    for (const index of highlight ? withIndex(line.kept, highlight.index) : line.kept) {
      const value = line.values[index] ?? 0;
      // A log scale has no place for zero (the first tree's upgrade cost): the line starts after it.
      if (chart.scale === 'log' && value <= 0) {
        penDown = false;
        continue;
      }
      const point = { x: xOf(index, count), y: yOf(chart.fraction, value) };
      path += `${penDown ? 'L' : 'M'}${point.x} ${point.y}`;
      penDown = true;
      if (count <= MAX_DOTTED_POINTS) dots.push(point);
    }
    return { label: line.label, path, dots };
  });
  return {
    id: chart.id,
    title: chart.title,
    ...wordsOf(chart, highlight),
    width: WIDTH,
    height: HEIGHT,
    plot: PLOT,
    xTitle: chart.xTitle,
    xTicks: chart.xTicks,
    yTicks: chart.yTicks,
    series,
    highlight: highlight && {
      x: xOf(highlight.index, count),
      label: highlight.label,
      anchor: highlight.index > (count - 1) / 2 ? 'end' : 'start',
    },
  };
}

/**
 * The indices of the points a line keeps: all of them when there are few; otherwise the
 * first, the last, and the lowest and highest of each of `buckets` equal runs (the M4 idea:
 * a pixel column drawn from its extremes looks the same as one drawn from every point).
 */
export function downsample(values: readonly number[], buckets: number): number[] {
  const count = values.length;
  if (count <= 2 * buckets + 2) return values.map((_value, index) => index);
  const kept = [0];
  for (let bucket = 0; bucket < buckets; bucket++) {
    const start = Math.max(1, Math.floor((bucket * count) / buckets));
    const end = Math.min(count - 1, Math.floor(((bucket + 1) * count) / buckets));
    let low = start;
    let high = start;
    for (let index = start + 1; index < end; index++) {
      const value = values[index] ?? 0;
      if (value < (values[low] ?? 0)) low = index;
      if (value > (values[high] ?? 0)) high = index;
    }
    if (start < end) kept.push(Math.min(low, high), ...(low === high ? [] : [Math.max(low, high)]));
  }
  kept.push(count - 1);
  return kept;
}

/** `sorted` with `index` added in its place, if it is not there already (a binary search). */
function withIndex(sorted: readonly number[], index: number): readonly number[] {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if ((sorted[middle] ?? 0) < index) low = middle + 1;
    else high = middle;
  }
  if (sorted[low] === index) return sorted;
  return [...sorted.slice(0, low), index, ...sorted.slice(low)];
}

// A few points sit in the middle of equal slots, so end labels ("Large gift") stay inside;
// many points run from edge to edge.
const xOf = (index: number, count: number) =>
  round(
    PLOT.left + (count <= MAX_DOTTED_POINTS ? (index + 0.5) / count : index / (count - 1)) * (PLOT.right - PLOT.left),
  );
const yOf = (fraction: (value: number) => number, value: number) =>
  round(PLOT.bottom - fraction(value) * (PLOT.bottom - PLOT.top));

interface Scale {
  ticks: number[];
  /** Where a value sits between the bottom (0) and the top (1) of the plot. */
  fraction: (value: number) => number;
}

function logScale(values: number[]): Scale {
  const { min, max } = extremes(values);
  const low = Math.floor(Math.log10(min));
  const high = Math.max(Math.ceil(Math.log10(max)), low + 1);
  const step = Math.ceil((high - low) / 6);
  const ticks: number[] = [];
  for (let exponent = low; exponent < high + step; exponent += step) ticks.push(10 ** exponent);
  const top = Math.log10(ticks.at(-1) ?? 10 ** high);
  return { ticks, fraction: (value) => (Math.log10(value) - low) / (top - low) };
}

function linearScale(values: number[], unit: Unit): Scale {
  const { min, max } = extremes(values);
  // Start at zero unless the values sit in a narrow band far from it (growth speed 100–114%).
  const start = min <= max - min ? 0 : min;
  const step = niceStep((max - start) / 5 || 1, unit);
  const low = Math.floor(start / step) * step;
  const high = Math.max(Math.ceil(max / step) * step, low + step);
  const ticks: number[] = [];
  for (let tick = low; tick <= high + step / 2; tick += step) ticks.push(tick);
  return { ticks, fraction: (value) => (value - low) / (high - low) };
}

/** The smallest and largest value, by a loop: spreading 100,000 values into Math.min overflows the stack. */
function extremes(values: readonly number[]): { min: number; max: number } {
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (const value of values) {
    if (value < min) min = value;
    if (value > max) max = value;
  }
  return { min, max };
}

function niceStep(raw: number, unit: Unit): number {
  if (unit === 'seconds') return SECOND_STEPS.find((step) => step >= raw) ?? Math.ceil(raw / 3600) * 3600;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const nice = [1, 2, 2.5, 5, 10].find((factor) => factor * magnitude >= raw) ?? 10;
  return nice * magnitude;
}

type Series = { label: string; values: readonly number[] };
type Described = Pick<LineChartInput, 'unit' | 'scale'> & { points: readonly ChartPoint[] };
type Highlight = NonNullable<LineChartInput['highlight']>;

/** The caption under the chart, and the longer description its SVG is named by. */
function wordsOf(chart: PreparedChart, highlight?: Highlight): { caption: string; description: string } {
  const caption = [highlight ? highlightSentence(chart, highlight) : '', ...chart.words.lines]
    .filter((sentence) => sentence !== '')
    .join(' ');
  return { caption, description: `${chart.words.opening} ${[caption, ...chart.words.everyValue].join(' ')}` };
}

/** "Harvest value goes from $714 (level 1) to $329.74B (level 106)", and any peak between. */
function describeSeries(line: Series, input: Described): string {
  const plotted = line.values.flatMap((value, index) =>
    input.scale === 'log' && value <= 0 ? [] : [{ value, index }],
  );
  const first = plotted[0];
  const last = plotted.at(-1);
  if (!first || !last) return `${line.label}: no values.`;
  const at = (point: { value: number; index: number }) =>
    `${shown(input.unit, point.value)} (${input.points[point.index]?.name ?? ''})`;
  const highest = plotted.reduce((top, point) => (point.value > top.value ? point : top));
  const lowest = plotted.reduce((bottom, point) => (point.value < bottom.value ? point : bottom));
  const between = (point: { value: number }) => point.value !== first.value && point.value !== last.value;
  const peaks = [
    ...(between(highest) ? [`highest ${at(highest)}`] : []),
    ...(between(lowest) ? [`lowest ${at(lowest)}`] : []),
  ];
  return `${line.label} goes from ${at(first)} to ${at(last)}${peaks.map((peak) => `, ${peak}`).join('')}.`;
}

/** "Oak Tree (level 12): harvest value $1.2M, upgrade cost $3.4M." */
function highlightSentence(chart: PreparedChart, { index, label }: Highlight): string {
  const name = chart.points[index]?.name;
  const values = chart.series.flatMap((line) => {
    const value = line.values[index];
    return value === undefined ? [] : [`${line.label.toLowerCase()} ${shown(chart.unit, value)}`];
  });
  return `${label}${name && name !== label ? ` (${name})` : ''}: ${values.join(', ')}.`;
}

/** "Cost: $0 (level 1), $11.5K (level 2), …" */
function listValues(line: Series, input: Described): string {
  const values = line.values.map((value, index) => `${shown(input.unit, value)} (${input.points[index]?.name ?? ''})`);
  return `${line.label}: ${values.join(', ')}.`;
}

const round = (value: number) => Math.round(value * 10) / 10;
