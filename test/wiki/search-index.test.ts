// The wiki's search as built into dist/: Pagefind's index (what a result's snippet can show)
// and the near-miss files the search page's "Did you mean" reads (src/wiki/search-suggest.ts).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, test } from 'vitest';
import { loadContent } from '../../src/build/content.ts';
import { projectDir } from '../../src/cli/project-dir.ts';
import { searchKey } from '../../src/contract/search-key.ts';
import { kinds } from '../../src/schema/kinds.ts';
import { NEAR_MANIFEST_PATH, type NearManifest } from '../../src/contract/near-files.ts';
import { didYouMean } from '../../src/wiki/search-suggest.ts';
import { distDir } from '../support/runtimes.ts';

/** One indexed page as Pagefind stores it: the text its snippets are cut from, and its metadata. */
interface Fragment {
  url: string;
  content: string;
  meta: Record<string, string>;
}

/** Every fragment of the built index: gzip, then Pagefind's signature line before the JSON. */
const fragments: Fragment[] = readdirSync(join(distDir, 'pagefind/fragment')).map((file) => {
  const text = gunzipSync(readFileSync(join(distDir, 'pagefind/fragment', file))).toString('utf8');
  return JSON.parse(text.slice(text.indexOf('{'))) as Fragment;
});
const content = loadContent(join(projectDir, 'content'));
/** What a record page shows a player of its content, by page path (the fields each kind may have). */
interface Readable {
  name?: string;
  aliases?: string[];
  plantingRegion?: string;
  funfact?: string;
}
const records = new Map<string, Readable>(
  kinds.flatMap((kind) =>
    content.entries[kind.id].map((entry) => [`/${kind.id}/${entry.slug}/`, entry.data as Readable]),
  ),
);
const wordsOf = (text: string) => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

describe('a search snippet shows only what a player reads', () => {
  test('every record page is indexed', () => {
    expect(fragments.map((fragment) => fragment.url).sort()).toEqual([...records.keys()].sort());
  });

  test("a record's indexed text: its name, region, earlier names, fun fact; no search key, no release note", () => {
    for (const { url, content: text, meta } of fragments) {
      const data = records.get(url) ?? {};
      const read = [
        meta.title ?? '',
        data.plantingRegion ?? '',
        data.aliases ? `Also known as ${data.aliases.join(' ')}: a search by that name finds it too.` : '',
        data.funfact ?? '',
      ];
      const readable = new Set(read.flatMap(wordsOf));
      expect(
        wordsOf(text).filter((word) => !readable.has(word)),
        url,
      ).toEqual([]);
    }
  });

  test('the keys of the name and earlier names are searched as metadata ("oaktree", "breadknife")', () => {
    const knife = fragments.find((fragment) => fragment.url === '/cutters/knife/');
    expect(knife?.meta.keys).toBe('knife breadknife');
    for (const { url, meta } of fragments) {
      const data = records.get(url) ?? {};
      const names = [data.name ?? [], data.aliases ?? []].flat();
      expect(meta.keys?.split(' ') ?? [], url).toEqual(names.map(searchKey));
    }
  });
});

describe('"Did you mean": the API\'s near misses, from the files the build publishes for the wiki', () => {
  const read = async (path: string) => JSON.parse(readFileSync(join(distDir, decodeURIComponent(path)), 'utf8'));

  test('a typo names the record it was meant for: "sequioa" -> Giant Sequoia, "chainsow" -> Chainsaw', async () => {
    await expect(didYouMean('sequioa', read)).resolves.toEqual(['Giant Sequoia']);
    await expect(didYouMean('Chainsow', read)).resolves.toEqual(['Chainsaw']);
  });

  test('a text too short for near misses, or near nothing, names nothing', async () => {
    await expect(didYouMean('oka', read)).resolves.toEqual([]);
    await expect(didYouMean('xqzwvk', read)).resolves.toEqual([]);
    await expect(didYouMean('12', read)).resolves.toEqual([]);
  });

  test("the manifest names exactly the files written, each named kind's", () => {
    const manifest = JSON.parse(readFileSync(join(distDir, NEAR_MANIFEST_PATH), 'utf8')) as NearManifest;
    const folder = join(distDir, 'search/near');
    const written = Object.fromEntries(
      readdirSync(folder).map((kind) => [
        kind,
        readdirSync(join(folder, kind)).map((file) => file.replace(/\.json$/, '')),
      ]),
    );
    const sorted = (roots: Record<string, string[]>) =>
      Object.fromEntries(Object.entries(roots).map(([kind, files]) => [kind, [...files].sort()]));
    expect(sorted(written)).toEqual(sorted(manifest));
    expect(Object.keys(manifest)).toEqual(kinds.filter((kind) => kind.named).map((kind) => kind.id));
  });
});
