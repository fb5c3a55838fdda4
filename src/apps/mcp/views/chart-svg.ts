// A chart of the wiki (src/wiki/chart.ts's ChartModel) as an SVG element, drawn as the record
// pages draw it (src/wiki/components/Chart.astro, at build time): the view draws it in the frame.
import type { ChartModel } from '../../../wiki/chart.ts';
import { make } from './connect.ts';

const SVG = 'http://www.w3.org/2000/svg';
type Attributes = Record<string, string | number>;

function svg(tag: string, attributes: Attributes = {}, text = ''): SVGElement {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  if (text !== '') node.textContent = text;
  return node;
}
const group = (attributes: Attributes, children: SVGElement[]) => {
  const node = svg('g', attributes);
  node.append(...children);
  return node;
};

/** The chart's figure: its caption and the SVG with its title and description. */
export function chartFigure(chart: ChartModel): HTMLElement {
  const { plot } = chart;
  const figure = make('figure', '', 'chart card');
  const caption = make('figcaption');
  caption.append(make('strong', chart.title), make('br'), chart.caption);
  const image = svg('svg', {
    viewBox: `0 0 ${chart.width} ${chart.height}`,
    role: 'img',
    'aria-labelledby': `${chart.id}-title ${chart.id}-desc`,
  });
  image.append(
    svg('title', { id: `${chart.id}-title` }, chart.title),
    svg('desc', { id: `${chart.id}-desc` }, chart.description),
    group(
      { class: 'grid axis' },
      chart.yTicks.map((tick) =>
        group({}, [
          svg('line', { x1: plot.left, x2: plot.right, y1: tick.y, y2: tick.y }),
          svg('text', { x: plot.left - 8, y: tick.y, 'text-anchor': 'end', 'dominant-baseline': 'middle' }, tick.label),
        ]),
      ),
    ),
    group({ class: 'axis' }, [
      ...chart.xTicks.map((tick) =>
        svg('text', { x: tick.x, y: plot.bottom + 18, 'text-anchor': 'middle' }, tick.label),
      ),
      svg('text', { x: (plot.left + plot.right) / 2, y: chart.height - 4, 'text-anchor': 'middle' }, chart.xTitle),
    ]),
  );
  const mark = chart.highlight;
  if (mark)
    image.append(
      group({ class: 'highlight' }, [
        svg('line', { x1: mark.x, x2: mark.x, y1: plot.top, y2: plot.bottom }),
        svg(
          'text',
          { x: mark.x + (mark.anchor === 'start' ? 6 : -6), y: plot.top + 12, 'text-anchor': mark.anchor },
          mark.label,
        ),
      ]),
    );
  image.append(
    ...chart.series.map((series, index) =>
      group({ class: `series-${index}` }, [
        svg('path', { class: 'line', d: series.path }),
        ...series.dots.map((dot) => svg('circle', { cx: dot.x, cy: dot.y, r: 3.5 })),
      ]),
    ),
    group({ class: 'legend' }, legendOf(chart)),
  );
  figure.append(caption, image);
  return figure;
}

/** The legend's entries side by side above the plot, each as wide as its label. */
function legendOf(chart: ChartModel): SVGElement[] {
  let legendX = chart.plot.left;
  return chart.series.map((series, index) => {
    const item = group({ class: `series-${index}` }, [
      svg('rect', { x: legendX, y: 10, width: 18, height: 6, rx: 3 }),
      svg('text', { x: legendX + 24, y: 13, 'dominant-baseline': 'middle' }, series.label),
    ]);
    legendX += series.label.length * 8 + 40;
    return item;
  });
}
