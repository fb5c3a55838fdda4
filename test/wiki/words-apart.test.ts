// Words apart: in every built page a word keeps the space its template gives it from the link,
// code span or value beside it. Astro 7's default white-space rules (compressHTML: 'jsx') drop a
// line break between text and the element or {expression} after it, so wrapped prose read
// "Ask theplanner" and "the first25 records"; the site turns them off (src/build/astro-config.ts)
// and these tests read every page in dist/ for the joins they made.
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { siteConfig } from '../../src/build/astro-config.ts';
import { loadContent } from '../../src/build/content.ts';
import { projectDir } from '../../src/cli/project-dir.ts';
import { kinds } from '../../src/schema/kinds.ts';
import { builtPages } from '../support/built-pages.ts';

/** Elements that flow within a line of text: a word against one of them reads as one word with its text. */
const INLINE = new Set('a abbr b cite code data dfn em i kbd mark s samp small span strong time u var'.split(' '));
/** Elements whose content is not prose: scripts, styles, preformatted examples, drawings. */
const NOT_PROSE = new Set(['pre', 'script', 'style', 'svg', 'template', 'textarea']);
/** Elements whose own text may join letters and digits, as code does ("sha256"). */
const CODE = new Set(['code', 'kbd', 'samp', 'var']);

type Token = { text: string } | { tag: string; opening: boolean };

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };
const decode = (text: string) =>
  text
    .replace(/&#(x?)([0-9a-f]+);/gi, (_, hex: string, digits: string) =>
      String.fromCodePoint(Number.parseInt(digits, hex ? 16 : 10)),
    )
    .replace(/&([a-z]+);/gi, (entity, name: string) => ENTITIES[name] ?? entity);

// A tag with its attributes (quoted values may hold '>'), a comment or doctype, text, or a stray '<'.
const MARKUP = /<(\/?)([a-z][\w-]*)(?:\s+[^\s=/>]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s>]+))?)*\s*\/?>|<![^>]*>|[^<]+|</gi;

/** The page's text and tags in order, without comments, attributes or the content of non-prose elements. */
function* tokens(html: string): Generator<Token> {
  let skipping = '';
  for (const [raw, closing, name] of html.matchAll(MARKUP)) {
    if (name === undefined) {
      if (!skipping && !raw.startsWith('<')) yield { text: decode(raw) };
      continue;
    }
    const tag = name.toLowerCase();
    if (skipping) {
      if (closing && tag === skipping) skipping = '';
      continue;
    }
    if (!closing && NOT_PROSE.has(tag) && !raw.endsWith('/>')) skipping = tag;
    yield { tag, opening: !closing };
  }
}

const WORD_END = /[\p{L}\p{N},;:.!?)]$/u;
const WORD_START = /^[\p{L}\p{N}]/u;

/**
 * Each place where text ending in a word (or in punctuation a space follows) meets the text of an
 * inline element with no space between, as "Ask the<a>planner" or "page,<a>Datasette". A block
 * element or a line break between them is a break, not a join. Entering an element, a path counts
 * as a word too ("under<code>/api").
 */
function wordsAgainstElements(html: string): string[] {
  const joins: string[] = [];
  let before = '';
  let between = '';
  let opens = false;
  for (const token of tokens(html)) {
    if ('tag' in token) {
      if (!INLINE.has(token.tag)) [before, between, opens] = ['', '', false];
      else [between, opens] = [`${between}<${token.opening ? '' : '/'}${token.tag}>`, opens || token.opening];
      continue;
    }
    const starts = WORD_START.test(token.text) || (opens && token.text.startsWith('/'));
    if (between && WORD_END.test(before) && starts)
      joins.push(`${before.slice(-20)}${between}${token.text.slice(0, 20)}`);
    [before, between, opens] = [`${before}${token.text}`.slice(-40), '', false];
  }
  return joins;
}

/** A lower-case word run into a number, or a number into one: "first25", "25records". */
const NUMBER_JOIN = /\p{Ll}{2}\p{N}|\p{N}\p{Ll}{2}/u;
/** Hex digests and ids ("50f442909b29bed2") and ordinals ("21st") join letters and digits by nature. */
const JOINED_BY_NATURE = /^(?:[0-9a-f]{7,}|\d+(?:st|nd|rd|th))$/;

/** The words of the page's prose, outside code, that join letters and digits as a dropped space does. */
function numbersAgainstWords(html: string, ownWords: ReadonlySet<string>): string[] {
  const joins: string[] = [];
  let inCode = 0;
  for (const token of tokens(html)) {
    if ('tag' in token) {
      if (CODE.has(token.tag)) inCode += token.opening ? 1 : -1;
      continue;
    }
    if (inCode > 0) continue;
    for (const word of token.text.match(/[\p{L}\p{N}]+/gu) ?? [])
      if (NUMBER_JOIN.test(word) && !JOINED_BY_NATURE.test(word) && !ownWords.has(word)) joins.push(word);
  }
  return joins;
}

/** Every word the content itself spells: a record named "Saw3000" is no dropped space. */
function contentWords(): Set<string> {
  const content = loadContent(join(projectDir, 'content'));
  const texts = kinds.flatMap((kind) => content.entries[kind.id].map((entry) => JSON.stringify(entry.data)));
  return new Set(texts.join(' ').match(/[\p{L}\p{N}]+/gu));
}

const pages = builtPages();

/** Each page's findings, as "path: finding", for a failure that names them all. */
const everyPage = (find: (html: string) => string[]) =>
  [...pages].flatMap(([path, html]) => find(html).map((finding) => `${path}: ${finding}`));

describe('words apart', () => {
  test('no word runs into the link, code span or other inline element beside it', () => {
    expect(pages.size, 'pages read from dist/').toBeGreaterThan(kinds.length);
    expect(everyPage(wordsAgainstElements)).toEqual([]);
  });

  test('no word runs into the number beside it', () => {
    const ownWords = contentWords();
    expect(everyPage((html) => numbersAgainstWords(html, ownWords))).toEqual([]);
  });

  // The rendered text cannot show a word run into a word ("the{kind}" as "thetrees"); the
  // setting that keeps the template's line break as a space is what prevents it.
  test("the site keeps its templates' white space: compressHTML is true, not Astro 7's JSX rules", () => {
    expect(siteConfig().compressHTML).toBe(true);
  });

  test('the checks see the joins they look for', () => {
    expect(wordsAgainstElements('<p>Ask the\n<a href="/planner/">planner</a>.</p>')).toEqual([]);
    expect(wordsAgainstElements('<p>Ask the<a href="/planner/">planner</a>.</p>')).toEqual(['Ask the<a>planner']);
    expect(wordsAgainstElements('<p>web page,<a href="x">Datasette</a></p>')).toEqual(['web page,<a>Datasette']);
    expect(wordsAgainstElements('<p>under<a><code>/api</code></a>/x</p>')).toEqual(['under<a><code>/api']);
    expect(wordsAgainstElements('<p><code>null</code>/<code>undefined</code> (<code>x</code>)</p>')).toEqual([]);
    expect(wordsAgainstElements('<th>Cost<br><small>per level</small></th><td>1</td><td>2</td>')).toEqual([]);
    expect(numbersAgainstWords('<p>the first25 records, sha <code>ab12cd34ef</code>, 21st</p>', new Set())).toEqual([
      'first25',
    ]);
  });
});
