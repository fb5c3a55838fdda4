// What the accessibility tests ask of a page in the browser: axe-core's verdict, and whether
// the focused element shows a ring that can be seen.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Frame, Page } from 'playwright-core';

/** WCAG 2.2 A and AA, and axe's best practices (landmark-unique, region, heading order…). */
export const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'];

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** One line per failing element: "color-contrast (serious): .badge.derived: Fix any of…". */
export async function axeViolations(page: Page | Frame): Promise<string[]> {
  // Evaluated through the DevTools protocol, so no Content-Security-Policy can block it.
  await page.evaluate(axeSource);
  return page.evaluate(`axe.run(document, { runOnly: { type: 'tag', values: ${JSON.stringify(AXE_TAGS)} } })
    .then((result) => result.violations.flatMap((violation) => violation.nodes.map((node) =>
      violation.id + ' (' + violation.impact + '): ' + node.target.join(' ') + ': ' +
      node.failureSummary.replace(/\\s+/g, ' '))))`);
}

/** A WCAG focus indicator: at least 2 px thick, 3:1 against what surrounds it. */
const MIN_RING_WIDTH = 2;
const MIN_RING_CONTRAST = 3;

export interface FocusRing {
  /** The focused element, for messages: `a "Trees"`. */
  element: string;
  style: string;
  width: number;
  /** The lowest contrast between the ring and the colour just outside it, on any visible side. */
  contrast: number;
}

/** What is wrong with the focused element's ring, or undefined when it is clearly visible. */
export function ringProblem(ring: FocusRing): string | undefined {
  if (ring.style === 'none' || ring.width < MIN_RING_WIDTH) return `${ring.element}: no focus ring (${ring.style})`;
  if (ring.contrast < MIN_RING_CONTRAST) return `${ring.element}: focus ring contrast ${ring.contrast.toFixed(2)}:1`;
  return undefined;
}

/**
 * Focuses every element the keyboard can reach, in document order, and measures its ring:
 * the outline, and its contrast with the colours just outside it (the layers under a point in
 * the middle of the ring, on each side that is on screen). One Tab press first, so that the
 * browser shows rings as it does for the keyboard; then one round trip for the whole page.
 */
export async function focusRings(page: Page): Promise<FocusRing[]> {
  await page.keyboard.press('Tab');
  return page.evaluate(() => {
    const focusable = 'a[href], button, input:not([type="hidden"]), select, textarea, summary, [tabindex]';
    const reachable = [...document.querySelectorAll<HTMLElement>(focusable)].filter(
      (element) =>
        element.tabIndex >= 0 && !element.matches(':disabled') && element.checkVisibility({ visibilityProperty: true }),
    );
    return reachable.map((element) => {
      element.focus();
      return ringOf(element);
    });

    function ringOf(element: HTMLElement): FocusRing {
      const style = getComputedStyle(element);
      const width = Number.parseFloat(style.outlineWidth) || 0;
      const reach = (Number.parseFloat(style.outlineOffset) || 0) + width / 2;
      const box = element.getBoundingClientRect();
      const rgba = (color: string) => {
        const [red = 0, green = 0, blue = 0, alpha = 1] = (color.match(/[\d.]+/g) ?? []).map(Number);
        return { red, green, blue, alpha };
      };
      const luminance = (color: ReturnType<typeof rgba>) => {
        const linear = [color.red, color.green, color.blue].map((channel) => {
          const value = channel / 255;
          return value <= 0.04045 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4;
        });
        return 0.2126 * (linear[0] ?? 0) + 0.7152 * (linear[1] ?? 0) + 0.0722 * (linear[2] ?? 0);
      };
      // The colour under a point: background layers from the top down, blended over white.
      const colourAt = (x: number, y: number) => {
        const layers = document.elementsFromPoint(x, y).map((layer) => rgba(getComputedStyle(layer).backgroundColor));
        const opaque = layers.findIndex((layer) => layer.alpha >= 1);
        const stack = (opaque === -1 ? layers : layers.slice(0, opaque + 1)).reverse();
        return stack.reduce(
          (under, layer) => ({
            red: layer.red * layer.alpha + under.red * (1 - layer.alpha),
            green: layer.green * layer.alpha + under.green * (1 - layer.alpha),
            blue: layer.blue * layer.alpha + under.blue * (1 - layer.alpha),
            alpha: 1,
          }),
          { red: 255, green: 255, blue: 255, alpha: 1 },
        );
      };
      // The middle of the part on screen: a long table's region is taller than the window.
      const middle = {
        x: (Math.max(box.left, 0) + Math.min(box.right, innerWidth)) / 2,
        y: (Math.max(box.top, 0) + Math.min(box.bottom, innerHeight)) / 2,
      };
      const sides = [
        { x: box.left - reach, y: middle.y },
        { x: box.right + reach, y: middle.y },
        { x: middle.x, y: box.top - reach },
        { x: middle.x, y: box.bottom + reach },
        // A point in the window's last fraction of a pixel can hit no element (seen at 843.9 of 844): off the page.
      ].filter((point) => document.elementsFromPoint(point.x, point.y).length > 0);
      const ring = luminance(rgba(style.outlineColor));
      const contrasts = sides.map((point) => {
        const around = luminance(colourAt(point.x, point.y));
        return (Math.max(ring, around) + 0.05) / (Math.min(ring, around) + 0.05);
      });
      const name = (element.textContent ?? '').trim().replace(/\s+/g, ' ').slice(0, 40);
      return {
        element: `${element.tagName.toLowerCase()}${element.id ? `#${element.id}` : ''} "${name}"`,
        style: element.matches(':focus-visible') ? style.outlineStyle : 'not :focus-visible',
        width,
        contrast: contrasts.length > 0 ? Math.min(...contrasts) : 0,
      };
    }
  });
}
