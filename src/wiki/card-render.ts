// Cards as PNG, made at build time without a browser or the network: satori lays a card's
// element tree (card-layout.ts) out as SVG, its text drawn as outlines of Inter from the
// @fontsource/inter package (in the lock file, so every machine draws the same letters), and
// resvg rasterises it. The fonts are read once per build. A card whose tree, fonts and
// libraries are those of a card rendered before is read from the cache (CARD_CACHE_DIR)
// instead: its name is the SHA-256 of all of them, so an edit re-renders only what it changes.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type satori from 'satori';
import { buildSettings } from '../build/settings.ts';
import { CARD_HEIGHT, CARD_WIDTH } from '../contract/cards.ts';
import type { CardNode } from './card-layout.ts';

const require = createRequire(import.meta.url);

/** The weights the cards use: 400 for words, 700 for names and values. */
const WEIGHTS = [400, 700] as const;

interface Renderer {
  fonts: { name: string; data: Buffer; weight: (typeof WEIGHTS)[number]; style: 'normal' }[];
  /** What besides the tree decides a card's bytes: the libraries' versions and the fonts' bytes. */
  identity: string;
  /** Where rendered cards are kept between builds. */
  cacheDir: string;
}

let loaded: Renderer | undefined;

/** How renderCard turns a tree into pixels besides the libraries: changed, it names every cached card stale. */
const RENDERING = 'satori, SVG pictures drawn in place, resvg';

function renderer(): Renderer {
  if (loaded) return loaded;
  // satori takes TTF, OTF and WOFF (not WOFF2): the package's .woff files, Latin only.
  const fonts = WEIGHTS.map((weight) => ({
    name: 'Inter',
    weight,
    style: 'normal' as const,
    data: readFileSync(require.resolve(`@fontsource/inter/files/inter-latin-${weight}-normal.woff`)),
  }));
  const identity = createHash('sha256').update(`${RENDERING}\n`);
  for (const name of ['satori', '@resvg/resvg-js'])
    identity.update(`${name}@${(require(`${name}/package.json`) as { version: string }).version}\n`);
  for (const font of fonts) identity.update(font.data);
  // By default beside the packages that render (node_modules/satori/dist/index.js: three folders up).
  const cacheDir = buildSettings().cardCacheDir ?? join(require.resolve('satori'), '../../../.cache/treefarm-cards');
  loaded = { fonts, identity: identity.digest('hex'), cacheDir };
  return loaded;
}

/** The card as the SVG resvg rasterises: satori's layout of it, with its SVG pictures drawn in place. */
export async function cardSvg(card: CardNode): Promise<string> {
  const { fonts } = renderer();
  // Loaded when a card is first rendered: a build whose cards all come from the cache never loads it.
  const { default: layOut } = await import('satori');
  // satori's types name React's element type; a card is that shape without React.
  const svg = await layOut(card as unknown as Parameters<typeof satori>[0], {
    width: CARD_WIDTH,
    height: CARD_HEIGHT,
    fonts,
  });
  return svg.replace(/<image\b([^>]*)\/>/g, (image, attributes: string) => svgInPlace(attributes) ?? image);
}

/**
 * An SVG picture satori drew as an `<image>` (the card's chart), as a nested `<svg>` in its place.
 * resvg draws an `<image>` of an SVG, and each clip path and mask satori puts on it, on a layer
 * of its own (41 M instructions a card, docs/cards.md#cost); a nested `<svg>` whose overflow is
 * visible it draws straight onto the card. Its box no longer clips it: a card's picture keeps
 * its strokes inside its own view box (chart-svg.ts's margin). Undefined for any other image.
 */
function svgInPlace(attributes: string): string | undefined {
  const attribute = (name: string): string | undefined => new RegExp(`\\s${name}="([^"]*)"`).exec(attributes)?.[1];
  const picture = /^data:image\/svg\+xml;base64,(.+)$/.exec(attribute('href') ?? '')?.[1];
  if (picture === undefined || attribute('transform') !== undefined) return undefined;
  const box = ['x', 'y', 'width', 'height'].map((name) => ` ${name}="${attribute(name) ?? 0}"`).join('');
  // The picture's own size gives way to its box's, where satori laid it out.
  return Buffer.from(picture, 'base64')
    .toString('utf8')
    .replace(
      /^<svg\b([^>]*)>/,
      (_root, own: string) => `<svg${own.replace(/\s(?:width|height)="[^"]*"/g, '')}${box} overflow="visible">`,
    );
}

/** The card's PNG, rendered afresh. */
export async function renderCard(card: CardNode): Promise<Uint8Array> {
  const svg = await cardSvg(card);
  const { Resvg } = await import('@resvg/resvg-js');
  // No system fonts: every letter is an outline already, and the machine's fonts must not matter.
  return new Resvg(svg, { font: { loadSystemFonts: false } }).render().asPng();
}

/**
 * The card's PNG: from the cache when the same card was rendered before, else rendered (and kept).
 * `of` names it for an error: its record (kind/slug) or release, and its path.
 */
export async function cardPng(card: CardNode, of: { name: string; path: string }): Promise<Uint8Array> {
  try {
    return await cachedOrRendered(card);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`The card of ${of.name} (${of.path}) could not be made: ${reason}`);
  }
}

async function cachedOrRendered(card: CardNode): Promise<Uint8Array> {
  const { identity, cacheDir } = renderer();
  const name = createHash('sha256').update(identity).update(JSON.stringify(card)).digest('hex');
  const path = join(cacheDir, `${name}.png`);
  try {
    return readFileSync(path);
  } catch {
    const png = await renderCard(card);
    mkdirSync(cacheDir, { recursive: true });
    // Renamed into place: a build running beside this one never reads half a card.
    const partial = `${path}.${process.pid}.partial`;
    writeFileSync(partial, png);
    renameSync(partial, path);
    return png;
  }
}
