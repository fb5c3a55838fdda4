// Line charts drawn at build time: this module works out the geometry and the words (title,
// description, caption); Chart.astro writes the SVG. No chart code reaches the browser.
// The words carry the figures, for whoever cannot see the lines: where each line starts and
// ends and its peaks, the highlighted record's values, and every value of a short series.
import { shown, type Unit } from './format.ts';

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
/** Tick every so many points: round levels (1, 20, 40…) read better than 1, 12, 23…. */
const X_TICK_STEPS = [1, 2, 5, 10, 20, 25, 50, 100];
/** Steps that read well as durations: seconds, then whole minutes. */
const SECOND_STEPS = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600];

export function lineChart(input: LineChartInput): ChartModel {
  const values = input.series
    .flatMap((series) => series.values)
    .filter((value) => input.scale === 'linear' || value > 0);
  const scale = input.scale === 'log' ? logScale(values) : linearScale(values, input.unit);
  const count = input.points.length;
  // A few points sit in the middle of equal slots, so end labels ("Large gift") stay inside;
  // many points run from edge to edge.
  const inset = count <= MAX_DOTTED_POINTS;
  const xOf = (index: number) =>
    round(PLOT.left + (inset ? (index + 0.5) / count : index / (count - 1)) * (PLOT.right - PLOT.left));
  const yOf = (value: number) => round(PLOT.bottom - scale.fraction(value) * (PLOT.bottom - PLOT.top));

  const series = input.series.map((line) => {
    let path = '';
    let penDown = false;
    const dots: { x: number; y: number }[] = [];
    line.values.forEach((value, index) => {
      // A log scale has no place for zero (the first tree's upgrade cost): the line starts after it.
      if (input.scale === 'log' && value <= 0) {
        penDown = false;
        return;
      }
      const point = { x: xOf(index), y: yOf(value) };
      path += `${penDown ? 'L' : 'M'}${point.x} ${point.y}`;
      penDown = true;
      if (count <= MAX_DOTTED_POINTS) dots.push(point);
    });
    return { label: line.label, path, dots };
  });

  const tickEvery = X_TICK_STEPS.find((step) => count / step <= MAX_X_TICKS) ?? Math.ceil(count / MAX_X_TICKS);
  const xTicks = input.points.flatMap((point, index) =>
    index === 0 || (index + 1) % tickEvery === 0 ? [{ x: xOf(index), label: point.tick }] : [],
  );
  const highlight = input.highlight && {
    x: xOf(input.highlight.index),
    label: input.highlight.label,
    anchor: input.highlight.index > (count - 1) / 2 ? ('end' as const) : ('start' as const),
  };
  return {
    id: input.id,
    title: input.title,
    ...wordsOf(input),
    width: WIDTH,
    height: HEIGHT,
    plot: PLOT,
    xTitle: input.xTitle,
    xTicks,
    yTicks: scale.ticks.map((value) => ({ y: yOf(value), label: shown(input.unit, value) })),
    series,
    highlight,
  };
}

interface Scale {
  ticks: number[];
  /** Where a value sits between the bottom (0) and the top (1) of the plot. */
  fraction: (value: number) => number;
}

function logScale(values: number[]): Scale {
  const low = Math.floor(Math.log10(Math.min(...values)));
  const high = Math.max(Math.ceil(Math.log10(Math.max(...values))), low + 1);
  const step = Math.ceil((high - low) / 6);
  const ticks: number[] = [];
  for (let exponent = low; exponent < high + step; exponent += step) ticks.push(10 ** exponent);
  const top = Math.log10(ticks.at(-1) ?? 10 ** high);
  return { ticks, fraction: (value) => (Math.log10(value) - low) / (top - low) };
}

function linearScale(values: number[], unit: Unit): Scale {
  const min = Math.min(...values);
  const max = Math.max(...values);
  // Start at zero unless the values sit in a narrow band far from it (growth speed 100–114%).
  const start = min <= max - min ? 0 : min;
  const step = niceStep((max - start) / 5 || 1, unit);
  const low = Math.floor(start / step) * step;
  const high = Math.max(Math.ceil(max / step) * step, low + step);
  const ticks: number[] = [];
  for (let tick = low; tick <= high + step / 2; tick += step) ticks.push(tick);
  return { ticks, fraction: (value) => (value - low) / (high - low) };
}

function niceStep(raw: number, unit: Unit): number {
  if (unit === 'seconds') return SECOND_STEPS.find((step) => step >= raw) ?? Math.ceil(raw / 3600) * 3600;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const nice = [1, 2, 2.5, 5, 10].find((factor) => factor * magnitude >= raw) ?? 10;
  return nice * magnitude;
}

type Series = LineChartInput['series'][number];

/** The caption under the chart, and the longer description its SVG is named by. */
function wordsOf(input: LineChartInput): { caption: string; description: string } {
  const count = input.points.length;
  const caption = [highlightSentence(input), ...input.series.map((line) => describeSeries(line, input))]
    .filter((sentence) => sentence !== '')
    .join(' ');
  const everyValue = count <= MAX_DOTTED_POINTS ? input.series.map((line) => listValues(line, input)) : [];
  const lines = input.series.map((line) => line.label.toLowerCase()).join(', ');
  const scale = input.scale === 'log' ? ', on a logarithmic scale where each grid line is a power of ten' : '';
  const over = `${count} ${input.xTitle === 'Level' ? 'levels' : 'records'}`;
  return { caption, description: `Line chart of ${lines} for ${over}${scale}. ${[caption, ...everyValue].join(' ')}` };
}

/** "Harvest value goes from $714 (level 1) to $329.74B (level 106)", and any peak between. */
function describeSeries(line: Series, input: LineChartInput): string {
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
function highlightSentence(input: LineChartInput): string {
  if (!input.highlight) return '';
  const { index, label } = input.highlight;
  const name = input.points[index]?.name;
  const values = input.series.flatMap((line) => {
    const value = line.values[index];
    return value === undefined ? [] : [`${line.label.toLowerCase()} ${shown(input.unit, value)}`];
  });
  return `${label}${name && name !== label ? ` (${name})` : ''}: ${values.join(', ')}.`;
}

/** "Cost: $0 (level 1), $11.5K (level 2), …" */
function listValues(line: Series, input: LineChartInput): string {
  const values = line.values.map((value, index) => `${shown(input.unit, value)} (${input.points[index]?.name ?? ''})`);
  return `${line.label}: ${values.join(', ')}.`;
}

const round = (value: number) => Math.round(value * 10) / 10;
