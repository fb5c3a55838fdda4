// The offline bundles: a pure function from the content to the files of dist/downloads/
// (a .tar.gz, a .zip and latest.json). The same content gives byte-identical archives:
// fixed timestamps and modes, sorted entries, fixed gzip header. They are made once per build
// (the build's integration): the downloads page shows their names, sizes and digests, and the
// integration writes the same bytes.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { constants, createGzip } from 'node:zlib';
import tar from 'tar-stream';
import {
  BUNDLE_BODIES,
  BUNDLE_FORMATS,
  BUNDLE_MANIFEST,
  bundleFileName,
  bundleIndexPath,
  dataPath,
  DOWNLOADS_DIR,
  LATEST_FILE,
  MAX_BUNDLE_ENTRIES,
  PUBLISHED_BUNDLES,
  SQLITE_FILE,
  type BundleFormat,
  type BundleIndex,
  type BundleReleaseIndex,
  type Latest,
} from '../contract/bundle-layout.ts';
import { kinds } from '../schema/kinds.ts';
import { describeCounts, type Manifest } from '../schema/manifest.ts';
import { type ApiScope, manifestReleases, publishedScopes } from './api.ts';
import { countsOf, type Content } from './content.ts';
import { csvFiles } from './csv.ts';
import { sqliteFile } from './sqlite.ts';
import type { NearShardsOf } from './suggest-index.ts';
import type { Release } from './releases.ts';
import { OPENAPI_FILE } from '../contract/build-files.ts';
import { jsonSchemaFiles } from './json-schemas.ts';
import { openApiFile } from './openapi.ts';
import { writeZip } from './zip.ts';
import type { NamedBytes } from './named-bytes.ts';
import { sha256HexSync } from './hash.ts';

/** 2000-01-01: a fixed time for every entry, so archives depend on content only. */
const FIXED_MTIME_UTC = new Date(Date.UTC(2000, 0, 1));
const FILE_MODE = 0o644;
const DIRECTORY_MODE = 0o755;
/** The Unix file type bits of a regular file, for the zip external attributes. */
const REGULAR_FILE = 0o100000;
const GZIP_OS_UNIX = 3;

const utf8 = (text: string) => new TextEncoder().encode(text);
const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

/** Files published both at the site root and inside the bundles: openapi.json and schemas/. */
export function schemaFiles(content: Content): NamedBytes[] {
  return [
    { name: OPENAPI_FILE, bytes: utf8(openApiFile(content.version)) },
    ...jsonSchemaFiles().map((file) => ({ name: file.path, bytes: utf8(file.body) })),
  ];
}

function readme(content: Content): string {
  return `# Tree farm data ${content.version}

The reference data of the tree-farming game, for use without a network (${describeCounts(countsOf(content))}).

- \`data/<kind>.json\`: every record of a kind, a plain array in API order (level ascending).
- \`api/\`: the API's answers: \`${BUNDLE_BODIES}\` holds each distinct answer once, one per line, and
  \`${bundleIndexPath(undefined)}\` maps every route (such as \`trees/name/oaktree\`) to the line of its answer.
  Each data release has \`api/index/releases/<id>.json\`, the routes where it differs from the current data
  (null: not in that release); \`openBundle(file, { release: '<id>' })\` answers from one.
- \`schemas/<kind>.json\`: JSON Schema of each record kind; \`openapi.json\`: the OpenAPI document of the API.
- \`${SQLITE_FILE}\`: the same records as a SQLite database: a table per kind (pairs as \`<field>_min\` and
  \`<field>_max\`), \`aliases\`, \`releases\` and \`changes\` (what changed in each release, field by field), the
  full-text index \`search\` (FTS5) and \`fields\` (each column's unit and meaning).
- \`csv/<kind>.csv\`: the records of each kind as CSV (RFC 4180, UTF-8, a header row), the columns of its table;
  \`aliases\`, where a kind has them, is a JSON array of strings.
- \`manifest.json\`: the data version, the record counts, and the sha256 and size of every other file.

With the client package (\`npm install treefarm-data-client\`):
\`import { openBundle } from 'treefarm-data-client/offline';\`
\`const data = await openBundle('${bundleFileName(content.version, 'tar.gz')}'); await data.trees('Oak Tree');\`
It checks every file against manifest.json first. With Python's standard library:
\`sqlite3.connect('${SQLITE_FILE}')\`, or \`csv.DictReader(open('csv/trees.csv', newline='', encoding='utf-8'))\`.
In a clone of the project, \`npm run bundle:verify -- <archive>\` checks an archive.

Check that an archive is the one the site published, not only undamaged: whoever changes a file can
rewrite manifest.json too, but not the archive's SHA-256 that the site publishes on its Downloads page and
in \`${PUBLISHED_BUNDLES}\`. Given it, the client package refuses any other archive before reading anything
in it: \`npx treefarm trees --bundle ${bundleFileName(content.version, 'tar.gz')} --sha256 <digest>\` (or
\`--url https://<site>\`, which reads the digest from that file), and in code \`openBundle(file, { sha256 })\`;
in a clone of the project, \`npm run bundle:verify -- <archive> --sha256 <digest>\` (or \`--url https://<site>\`).
Without Node, compare \`sha256sum <archive>\` with the published digest.
`;
}

const byName = (a: NamedBytes, b: NamedBytes) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/**
 * The API as a bundle holds it (src/contract/bundle-layout.ts): each distinct body once, a line
 * of api/bodies.jsonl in the order first met, the current data's index of every route, and each
 * release's index of the routes where it differs from the current data. `scopes`: the current
 * data first, then the releases.
 */
export function bundleApiFiles(scopes: Iterable<ApiScope>): NamedBytes[] {
  const lines: string[] = [];
  const lineOf = new Map<string, string>();
  const bodyLine = (route: string, body: string) => {
    let line = lineOf.get(body);
    if (line === undefined) {
      // A line break would split the body in two lines: JSON.stringify never writes one.
      if (body.includes('\n'))
        throw new Error(`The body of ${route} holds a line break, which ${BUNDLE_BODIES} cannot.`);
      lines.push(body);
      line = String(lines.length);
      lineOf.set(body, line);
    }
    return line;
  };
  const files: NamedBytes[] = [];
  let current: Record<string, string> | undefined;
  for (const scope of scopes) {
    if (!current) {
      if (scope.release !== undefined) throw new Error('The current data comes first among the scopes of a bundle.');
      current = {};
      for (const { route, body } of scope.routes) current[route] = bodyLine(route, body);
      const index: BundleIndex = { version: scope.version, routes: current };
      files.push({ name: bundleIndexPath(undefined), bytes: utf8(JSON.stringify(index)) });
      continue;
    }
    const changed: Record<string, string | null> = {};
    const seen = new Set<string>();
    for (const { route, body } of scope.routes) {
      seen.add(route);
      const line = bodyLine(route, body);
      if (current[route] !== line) changed[route] = line;
    }
    for (const route of Object.keys(current)) if (!seen.has(route)) changed[route] = null;
    const index: BundleReleaseIndex = { version: scope.version, routes: changed };
    files.push({ name: bundleIndexPath(scope.release), bytes: utf8(JSON.stringify(index)) });
  }
  files.push({ name: BUNDLE_BODIES, bytes: utf8Lines(lines) });
  return files;
}

/**
 * Each line followed by a line break, as UTF-8 (what encoding `${lines.join('\n')}\n` gives),
 * written into one buffer rather than joined into one string first: at 10,000 trees the
 * bodies are 120 MiB, which the string held a second time.
 */
export function utf8Lines(lines: readonly string[]): Uint8Array {
  let size = 0;
  for (const line of lines) size += Buffer.byteLength(line) + 1;
  const bytes = new Uint8Array(size);
  const writer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = 0;
  for (const line of lines) {
    at += writer.write(line, at);
    writer[at++] = 0x0a;
  }
  return bytes;
}

/**
 * The files inside a bundle, sorted by path, manifest.json listing every other one. `nearShardsOf`:
 * the build's near-miss shards (src/build/suggest-index.ts), made here by default.
 */
export function bundleEntries(
  content: Content,
  releases: readonly Release[] = [],
  nearShardsOf?: NearShardsOf,
): NamedBytes[] {
  const files: NamedBytes[] = [
    ...kinds.map((kind) => ({
      name: dataPath(kind.id),
      bytes: utf8(json(content.entries[kind.id].map((entry) => entry.record))),
    })),
    ...bundleApiFiles(publishedScopes(content, releases, nearShardsOf)),
    ...schemaFiles(content),
    // The same records for SQL, Python, R and spreadsheets.
    sqliteFile(content, releases),
    ...csvFiles(content, releases),
    { name: 'README.md', bytes: utf8(readme(content)) },
  ].sort(byName);
  const manifest: Manifest = {
    version: content.version,
    counts: countsOf(content),
    files: Object.fromEntries(
      files.map((file) => [file.name, { sha256: sha256HexSync(file.bytes), size: file.bytes.length }]),
    ),
    releases: manifestReleases(releases),
  };
  return [...files, { name: BUNDLE_MANIFEST, bytes: utf8(json(manifest)) }].sort(byName);
}

/** A bundle the client would refuse to read, for holding more entries than it reads: never written. */
export class TooManyBundleEntries extends Error {
  override name = 'TooManyBundleEntries';
}

function refuseUnreadable(format: BundleFormat, entries: number): void {
  if (entries > MAX_BUNDLE_ENTRIES) {
    const figure = (count: number) => count.toLocaleString('en-US');
    throw new TooManyBundleEntries(
      `The ${format} bundle would hold ${figure(entries)} entries; the client reads ${figure(MAX_BUNDLE_ENTRIES)} ` +
        'at most (MAX_BUNDLE_ENTRIES, src/contract/bundle-layout.ts), so it is not written.',
    );
  }
}

/** Each folder before its files, so extracting the archive creates them with their mode. */
function* withDirectories(entries: NamedBytes[]): Generator<{ name: string; bytes?: Uint8Array }> {
  const seen = new Set<string>();
  for (const entry of entries) {
    const parts = entry.name.split('/');
    for (let depth = 1; depth < parts.length; depth++) {
      const directory = `${parts.slice(0, depth).join('/')}/`;
      if (!seen.has(directory)) {
        seen.add(directory);
        yield { name: directory };
      }
    }
    yield entry;
  }
}

export async function packTarGz(entries: NamedBytes[]): Promise<Uint8Array> {
  const withFolders = [...withDirectories(entries)];
  refuseUnreadable('tar.gz', withFolders.length);
  const pack = tar.pack();
  const owner = { uid: 0, gid: 0, uname: '', gname: '', mtime: FIXED_MTIME_UTC };
  for (const entry of withFolders) {
    if (entry.bytes)
      pack.entry(
        { ...owner, name: entry.name, type: 'file', mode: FILE_MODE, size: entry.bytes.length },
        // A view of the entry's bytes, not a copy (Buffer.from(uint8Array) copies).
        Buffer.from(entry.bytes.buffer, entry.bytes.byteOffset, entry.bytes.byteLength),
      );
    else pack.entry({ ...owner, name: entry.name, type: 'directory', mode: DIRECTORY_MODE });
  }
  pack.finalize();
  // Compressed as it is read, not gathered whole first (130 MiB at 10,000 trees): deflate's
  // output does not depend on how its input comes in pieces, so these are gzipSync's bytes.
  const gzip = createGzip({ level: constants.Z_BEST_COMPRESSION });
  const chunks: Buffer[] = [];
  await pipeline(pack, gzip, async (compressed: AsyncIterable<Buffer>) => {
    for await (const chunk of compressed) chunks.push(chunk);
  });
  const bytes = new Uint8Array(Buffer.concat(chunks));
  // The gzip header holds no time (bytes 4-7 are 0) and an OS byte that depends on the
  // platform zlib was built for: fix it, so every machine writes the same bytes.
  bytes[9] = GZIP_OS_UNIX;
  return bytes;
}

export function packZip(entries: NamedBytes[]): Uint8Array {
  refuseUnreadable('zip', entries.length);
  return writeZip(entries, { mode: REGULAR_FILE | FILE_MODE, date: { year: 2000, month: 1, day: 1 } });
}

const packers: Record<BundleFormat, (entries: NamedBytes[]) => Promise<Uint8Array> | Uint8Array> = {
  'tar.gz': packTarGz,
  zip: packZip,
};

/** The files of dist/downloads/: one archive per format, then latest.json naming them. */
export async function createDownloads(
  content: Content,
  releases: readonly Release[] = [],
  nearShardsOf?: NearShardsOf,
): Promise<NamedBytes[]> {
  const entries = bundleEntries(content, releases, nearShardsOf);
  const archives = await Promise.all(
    BUNDLE_FORMATS.map(async (format) => ({
      format,
      name: bundleFileName(content.version, format),
      bytes: await packers[format](entries),
    })),
  );
  const latest: Latest = {
    version: content.version,
    counts: countsOf(content),
    bundles: archives.map(({ name, format, bytes }) => ({
      name,
      format,
      size: bytes.length,
      sha256: sha256HexSync(bytes),
    })),
  };
  return [...archives.map(({ name, bytes }) => ({ name, bytes })), { name: LATEST_FILE, bytes: utf8(json(latest)) }];
}

/** What latest.json among the downloads says, for the downloads page. */
export function latestOf(downloads: readonly NamedBytes[]): Latest {
  const latest = downloads.find((file) => file.name === LATEST_FILE);
  if (!latest) throw new Error(`${LATEST_FILE} is missing from the downloads`);
  return JSON.parse(new TextDecoder().decode(latest.bytes)) as Latest;
}

/** Writes openapi.json, schemas/ and downloads/ below `outDir`; returns a line for the log. */
export function emitSchemasAndDownloads(content: Content, downloads: readonly NamedBytes[], outDir: string): string {
  const files = [
    ...schemaFiles(content),
    ...downloads.map((file) => ({ name: `${DOWNLOADS_DIR}/${file.name}`, bytes: file.bytes })),
  ];
  for (const file of files) {
    const target = join(outDir, file.name);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, file.bytes);
  }
  const bundles = BUNDLE_FORMATS.map((format) => bundleFileName(content.version, format)).join(', ');
  return `Offline: ${OPENAPI_FILE}, ${kinds.length} JSON Schemas and bundles ${bundles}`;
}
