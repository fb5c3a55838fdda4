// Builds for the reliability tests, always in temp folders: copies of the real dist/, a
// second complete build from edited content, and what a build looks like from outside
// (its manifest and the bytes of each answer).
import { cpSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { gunzipSync, brotliDecompressSync } from 'node:zlib';
import { createHash } from 'node:crypto';
import { emitApi } from '../../src/build/emit.ts';
import { replaceAtomically } from '../../src/build/atomic.ts';
import { loadContent } from '../../src/build/content.ts';
import { loadReleases } from '../../src/build/releases.ts';
import { PACK_FILE } from '../../src/contract/build-files.ts';
import {
  MANIFEST_FILE,
  pagesRoute,
  RELEASES_ROUTE,
  rootPath,
  shardPath,
  SUGGEST_SHARD,
} from '../../src/contract/paths.ts';
import { kindIds } from '../../src/schema/kind-ids.ts';
import { checkRoot } from '../../src/contract/route-index.ts';
import { buildManifestSchema, type BuildManifest } from '../../src/schema/manifest.ts';
import { routeBody, storedBytes } from './dist-routes.ts';
import { distDir } from './runtimes.ts';
import { projectDir } from '../../src/cli/project-dir.ts';
import { temporaryFolder } from './temporary-folders.ts';

export function tempDir(label: string): string {
  return temporaryFolder(`treefarm-${label}-`);
}

/** A copy of the real dist/ at `target` (the real one is never touched). */
export function copyDist(target: string): string {
  cpSync(distDir, target, { recursive: true });
  return target;
}

/**
 * Rebuilds the API into `target` (atomically, as `npm run build` does) from a copy of the
 * content with one tree's log count raised: a complete build of another data version.
 */
export async function buildEditedApi(target: string, workDir: string): Promise<BuildManifest> {
  const contentDir = join(workDir, 'content');
  cpSync(join(projectDir, 'content'), contentDir, { recursive: true });
  const treesDir = join(contentDir, 'trees');
  const treeFile = join(treesDir, readdirSync(treesDir).sort()[0] ?? '');
  const yaml = readFileSync(treeFile, 'utf8');
  writeFileSync(
    treeFile,
    yaml.replace(/^logCount: (\d+)$/m, (_line, count: string) => `logCount: ${Number(count) + 1}`),
  );
  const content = loadContent(contentDir);
  let manifest: BuildManifest | undefined;
  await replaceAtomically(target, async (staging) => {
    manifest = (await emitApi(content, staging, loadReleases(projectDir))).manifest;
  });
  if (!manifest) throw new Error('the edited build wrote no manifest');
  return manifest;
}

export interface Build {
  dir: string;
  manifest: BuildManifest;
  /**
   * Every answer of the build (routes of the current data, `<route>@<release>` for a release's;
   * not the near-miss shards, which are never sent) -> the SHA-256 of its identity bytes.
   */
  answers: ReadonlyMap<string, string>;
  /** Every answer -> the SHA-256 naming its stored body (the source of its ETags). */
  stored: ReadonlyMap<string, string>;
  /** The identity bytes of an answer, as the build wrote them. */
  body(answer: string): Buffer;
}

/** The answer key of a route of a scope. */
export const answerKey = (route: string, release?: string) => (release === undefined ? route : `${route}@${release}`);

/** The kinds' pages routes (pagesRoute): read by the Discord app, never sent. */
const PAGES_ROUTES = new Set(kindIds.map(pagesRoute));

/** A build as it is on disk now; the bytes are read once, so later changes do not show. */
export function readBuild(dir: string): Build {
  const manifest = buildManifestSchema.parse(JSON.parse(readFileSync(join(dir, MANIFEST_FILE), 'utf8')));
  const bodies = new Map<string, Buffer>();
  const answers = new Map<string, string>();
  const named = new Map<string, string>();
  for (const release of [undefined, ...manifest.releases.map((known) => known.id)]) {
    const root = checkRoot(JSON.parse(readFileSync(join(dir, rootPath(release)), 'utf8')), rootPath(release));
    for (let n = 0; n < root.shards; n++) {
      const shard = JSON.parse(readFileSync(join(dir, shardPath(release, n)), 'utf8')) as Record<string, string>;
      for (const [route, stored] of Object.entries(shard)) {
        // Read by the edge, never sent: near-miss shards, and a kind's pages (the Discord app's links).
        if (route.includes(`/${SUGGEST_SHARD}`) || PAGES_ROUTES.has(route)) continue;
        const key = answerKey(route, release);
        named.set(key, stored);
        const bytes = storedBytes(stored, 'identity', dir);
        bodies.set(key, bytes);
        answers.set(key, createHash('sha256').update(bytes).digest('hex'));
      }
    }
  }
  return {
    dir,
    manifest,
    answers,
    stored: named,
    body(answer) {
      const bytes = bodies.get(answer);
      if (!bytes) throw new Error(`${answer} is not an answer of the build in ${dir}`);
      return bytes;
    },
  };
}

/** Every file below `dir`, as paths relative to it with forward slashes. */
export function filesBelow(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)).split('\\').join('/'));
}

/** The body with its Content-Encoding undone. */
export function decodeBody(body: Buffer, contentEncoding: string | null | undefined): Buffer {
  if (contentEncoding === 'br') return brotliDecompressSync(body);
  if (contentEncoding === 'gzip') return gunzipSync(body);
  if (!contentEncoding || contentEncoding === 'identity') return body;
  throw new Error(`unexpected Content-Encoding ${contentEncoding}`);
}

/** Where the container of the stored body of `route` starts in the pack of the build in `dir`. */
export function packOffset(dir: string, route: string): number {
  const stored = routeBody(route, undefined, dir);
  const pack = readFileSync(join(dir, PACK_FILE));
  let offset = 0;
  while (offset < pack.length) {
    const line = pack.indexOf(0x0a, offset);
    const [identity = 0, br = 0, gzip = 0] = pack.subarray(offset, line).toString('latin1').split(' ').map(Number);
    const end = line + 1 + identity + br + gzip;
    if (createHash('sha256').update(pack.subarray(offset, end)).digest('hex') === stored) return offset;
    offset = end;
  }
  throw new Error(`the body of ${route} is not in the pack of ${dir}`);
}

/** Changes one byte in the middle of the body of `route` as the pack of the build in `dir` holds it. */
export function corruptPacked(dir: string, route: string): void {
  const packPath = join(dir, PACK_FILE);
  const pack = readFileSync(packPath);
  const at = packOffset(dir, route) + 40;
  pack[at] = (pack[at] ?? 0) ^ 0xff;
  writeFileSync(packPath, pack);
}

/** A name no record of any kind has: its search finds nothing. */
export const UNKNOWN_NAME = 'No Such Record';

/**
 * The answers of the kinds' endpoints: every answer but those under a leading `_`, which no request
 * names (the edge's fixed error bodies, the MCP app's view pages: read by the runtimes, never asked).
 */
export function envelopePaths(build: Build): string[] {
  return [...build.answers.keys()].filter((answer) => !answer.startsWith('_'));
}

/** The request target that the API answers with the answer `answer` (a key of Build.answers), and its status. */
export function requestFor(answer: string): { target: string; status: number } {
  const [route = '', release] = answer.split('@');
  if (release !== undefined) {
    const { target, status } = requestFor(route);
    return { target: `${target}${target.includes('?') ? '&' : '?'}release=${release}`, status };
  }
  if (route === RELEASES_ROUTE) return { target: '/api/releases', status: 200 };
  const [, kind, rest = ''] = /^([a-z]+)\/(.+)$/.exec(route) ?? [];
  if (!kind) throw new Error(`${route} is not a route of the API`);
  if (rest === 'list') return { target: `/api/${kind}`, status: 200 };
  if (rest === 'not-found') return { target: `/api/${kind}?search=${encodeURIComponent(UNKNOWN_NAME)}`, status: 404 };
  if (rest === 'suggest/first') return { target: `/api/${kind}/suggest`, status: 200 };
  // "!" has an empty search key: the empty suggestion answer.
  if (rest === 'suggest/none') return { target: `/api/${kind}/suggest?search=%21`, status: 200 };
  const suggestion = /^suggest\/(?:level|key)\/(.+)$/.exec(rest)?.[1];
  if (suggestion) return { target: `/api/${kind}/suggest?search=${suggestion}`, status: 200 };
  const search = /^(?:level|name)\/(.+)$/.exec(rest)?.[1];
  if (!search) throw new Error(`${route} is not a route of the API`);
  return { target: `/api/${kind}?search=${search}`, status: 200 };
}
