// A chart of the wiki (src/wiki/chart.ts's ChartModel) as a figure element: its caption, and its
// SVG as the record pages write it (src/wiki/chart-svg.ts), parsed into the view's frame.
import type { ChartModel } from '../../../wiki/chart.ts';
import { chartSvg } from '../../../wiki/chart-svg.ts';
import { make } from './connect.ts';

/** The chart's figure: its caption and the SVG with its title and description. */
export function chartFigure(chart: ChartModel): HTMLElement {
  const figure = make('figure', '', 'chart card');
  const caption = make('figcaption');
  caption.append(make('strong', chart.title), make('br'), chart.caption);
  // Parsed as HTML parses an inline <svg>, so its elements are SVG's, as on the pages.
  const image = document.createElement('template');
  image.innerHTML = chartSvg(chart);
  figure.append(caption, image.content);
  return figure;
}
