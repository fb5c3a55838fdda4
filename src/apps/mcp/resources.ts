// The MCP resources: every current record and every data release as a resource an assistant
// user can attach, by URI template (treefarm://<kind>/<slug>, treefarm://releases/<id>). A
// record's slug is its wiki page's (the build's pages body of its kind); its contents are the
// record exactly as GET /api/<kind> serves it, with its wiki link and the data version. The
// list is paginated (an opaque cursor, a fixed page size), as the protocol's pagination says.
import { kindById, kindIds, type KindId } from '../../schema/kinds.ts';
import type { ReleaseSummary } from '../../schema/releases.ts';
import { pagesRoute, recordPath, releasePath } from '../../contract/paths.ts';
import type { RecordPage } from '../../contract/record-pages.ts';
import { currentRoute, type RouteIndex } from '../../contract/resolve.ts';
import { recordsInWords } from '../../contract/suggest.ts';
import { CursorError } from './pages.ts';
import { askIn, records } from './tool-answers.ts';
import { viewResources } from './views.ts';

export const RESOURCE_SCHEME = 'treefarm';
/** Resources a page of resources/list holds. */
export const RESOURCE_PAGE_SIZE = 100;
const RELEASES = 'releases';
const JSON_TYPE = 'application/json';

/** A resource as resources/list lists it. */
export interface ListedResource {
  uri: string;
  name: string;
  title: string;
  description: string;
  mimeType: string;
  _meta?: Record<string, unknown>;
}

/** What a resource read gives: the resource's JSON text, and its URI. */
export interface ResourceText {
  uri: string;
  mimeType: string;
  text: string;
}

/** A URI this server reads that names nothing: the message names the URI and what there is. */
export class ResourceMissingError extends Error {
  override name = 'ResourceMissingError';
}

export const resourceUri = (kind: KindId | typeof RELEASES, slug: string) => `${RESOURCE_SCHEME}://${kind}/${slug}`;

/** The forms of every resource's URI, in words. */
export const RESOURCE_FORMS =
  `${resourceUri('{kind}' as KindId, '{slug}')} (kind one of ${kindIds.join(', ')}) ` +
  `and ${resourceUri(RELEASES, '{id}')}`;

/** The URI templates: one a kind (by slug) and one for the releases (by id). */
export function resourceTemplates() {
  return [
    ...kindIds.map((kind) => {
      const noun = kindById(kind)?.noun ?? kind;
      return {
        uriTemplate: resourceUri(kind, '{slug}'),
        name: kind,
        title: `A ${noun} by its slug`,
        description:
          `One ${noun} of the game, with every figure the game publishes for it, its wiki page and the data ` +
          `version. The slug is the last part of its wiki address (completion offers them).`,
        mimeType: JSON_TYPE,
      };
    }),
    {
      uriTemplate: resourceUri(RELEASES, '{id}'),
      name: RELEASES,
      title: 'A data release by its id',
      description:
        'One data release (YYYY-MM-DD, then -2 and -3 for later releases of that day): its record counts and what ' +
        'it added, removed and changed, with its page on the wiki.',
      mimeType: JSON_TYPE,
    },
  ];
}

interface Entry {
  kind: KindId | typeof RELEASES;
  slug: string;
  label: string;
  data: unknown;
  path: string;
}

/** Every resource, records by kind in list order then the releases newest first. */
async function entries(index: RouteIndex): Promise<{ version: string; all: Entry[] }> {
  const all: Entry[] = [];
  let version = '';
  for (const kind of kindIds) {
    const answer = await records(index, kind, null);
    version = answer.version;
    for (const [record, slug] of await withSlugs(index, kind, answer.data as { level: number; name?: string }[]))
      all.push({ kind, slug, label: recordsInWords([record]), data: record, path: recordPath(kind, slug) });
  }
  const releases = (await askIn(index, { endpoint: RELEASES, suggest: false, search: null, release: null }))
    .data as ReleaseSummary[];
  for (const release of releases)
    all.push({ kind: RELEASES, slug: release.id, label: release.id, data: release, path: releasePath(release.id) });
  return { version, all };
}

/** Each record with its slug (the pages body lists them in the same list order). */
async function withSlugs<Item extends { level: number; name?: string }>(
  index: RouteIndex,
  kind: KindId,
  items: Item[],
) {
  const body = await index.text((await currentRoute(index, pagesRoute(kind))).body);
  const { pages } = JSON.parse(body) as { pages: RecordPage[] };
  const slugOf = new Map(pages.map(([level, name, slug]) => [`${level}\n${name ?? ''}`, slug]));
  return items.flatMap((item): [Item, string][] => {
    const slug = slugOf.get(`${item.level}\n${item.name ?? ''}`);
    return slug === undefined ? [] : [[item, slug]];
  });
}

const listed = (entry: Entry): ListedResource => {
  const noun = entry.kind === RELEASES ? 'data release' : (kindById(entry.kind)?.noun ?? entry.kind);
  return {
    uri: resourceUri(entry.kind, entry.slug),
    name: `${entry.kind}/${entry.slug}`,
    title: entry.kind === RELEASES ? `Release ${entry.label}` : `${entry.label}, ${noun}`,
    description: `The ${noun} ${entry.label}, with its figures and its wiki page.`,
    mimeType: JSON_TYPE,
  };
};

/** A page of resources from `cursor` (none: the first); nextCursor when more follow. */
export async function resourcePage(index: RouteIndex, cursor: string | undefined) {
  // The MCP Apps views (views.ts) close the list, so its earlier pages stay as they were.
  const all = [...(await entries(index)).all.map(listed), ...viewResources()];
  const start = cursor === undefined ? 0 : cursorOffset(cursor, all.length);
  const end = start + RESOURCE_PAGE_SIZE;
  const page = all.slice(start, end);
  return end < all.length ? { resources: page, nextCursor: offsetCursor(end) } : { resources: page };
}

/** A cursor is opaque to clients: the offset it stands for, encoded. */
const offsetCursor = (offset: number) => btoa(`resources:${offset}`);

/** The offset a cursor of this server stands for; a CursorError for any other text. */
function cursorOffset(cursor: string, total: number): number {
  let decoded = '';
  try {
    decoded = atob(cursor);
  } catch {
    // Not base64: no cursor of this server; said below.
  }
  const match = /^resources:(\d+)$/.exec(decoded);
  const offset = match ? Number(match[1]) : Number.NaN;
  if (!(offset > 0 && offset < total))
    throw new CursorError(`cursor ${JSON.stringify(cursor)} is no cursor of this list: send the nextCursor it gave`);
  return offset;
}

/** The resource at `uri`: its JSON (the record or release, its wiki link, the data version). */
export async function readResource(index: RouteIndex, uri: string, origin: string): Promise<ResourceText> {
  const prefix = `${RESOURCE_SCHEME}://`;
  const [kind, slug, ...more] = uri.startsWith(prefix) ? uri.slice(prefix.length).split('/') : [];
  const known = kind === RELEASES || kindIds.includes(kind as KindId);
  const missing = (what: string) => new ResourceMissingError(`Resource ${JSON.stringify(uri)} not found: ${what}.`);
  if (!known || slug === undefined || slug === '' || more.length > 0)
    throw missing(`the resources are ${RESOURCE_FORMS}`);
  const { version, all } = await entries(index);
  const entry = all.find((each) => each.kind === kind && each.slug === slug);
  if (!entry) throw missing(`no ${kind === RELEASES ? 'release' : kindById(kind as KindId)?.noun} has that slug`);
  const key = kind === RELEASES ? 'release' : 'record';
  return {
    uri,
    mimeType: JSON_TYPE,
    text: JSON.stringify({ [key]: entry.data, wiki: origin + entry.path, version }),
  };
}

/** Whether `uri` is one of the URI templates, or the URI of a resource there is. */
export async function isResourceReference(index: RouteIndex, uri: string): Promise<boolean> {
  if (resourceTemplates().some((template) => template.uriTemplate === uri)) return true;
  try {
    await readResource(index, uri, '');
    return true;
  } catch (error) {
    if (error instanceof ResourceMissingError) return false;
    throw error;
  }
}

/** Slugs (or release ids) of `kind` that start with `typed`, in list order, at most `most`. */
export async function slugsStarting(index: RouteIndex, kind: string, typed: string, most: number) {
  const { all } = await entries(index);
  const matching = all.filter((each) => each.kind === kind && each.slug.startsWith(typed.toLowerCase()));
  return { values: matching.slice(0, most).map((each) => each.slug), total: matching.length };
}

/** A current record as a resource's contents (for a prompt to embed): found by its level and name. */
export async function readRecordResource(
  index: RouteIndex,
  kind: KindId,
  record: { level: number; name?: string },
  origin: string,
): Promise<ResourceText> {
  const [found] = await withSlugs(index, kind, [record]);
  if (!found) throw new Error(`The pages body of ${kind} lists no ${recordsInWords([record])}: rebuild.`);
  return readResource(index, resourceUri(kind, found[1]), origin);
}
