// Builds for the reliability tests, always in temp folders: copies of the real dist/, a
// second complete build from edited content, and what a build looks like from outside
// (its manifest and the bytes of each API file).
import { cpSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { gunzipSync, brotliDecompressSync } from 'node:zlib';
import { emitApi } from '../../src/build/api.ts';
import { replaceAtomically } from '../../src/build/atomic.ts';
import { loadContent } from '../../src/build/content.ts';
import { loadReleases } from '../../src/build/releases.ts';
import { MANIFEST_FILE, RELEASES_LIST_PATH } from '../../src/contract/paths.ts';
import { buildManifestSchema, type BuildManifest } from '../../src/schema/manifest.ts';
import { distDir } from '../support/runtimes.ts';
import { projectDir } from '../../src/build/site.ts';

export function tempDir(label: string): string {
  return mkdtempSync(join(tmpdir(), `treefarm-${label}-`));
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
    manifest = await emitApi(content, staging, loadReleases(projectDir));
  });
  if (!manifest) throw new Error('the edited build wrote no manifest');
  return manifest;
}

export interface Build {
  dir: string;
  manifest: BuildManifest;
  /** The identity bytes of an API file, as the build wrote them. */
  body(path: string): Buffer;
}

/** A build as it is on disk now; the bytes are read once, so later changes do not show. */
export function readBuild(dir: string): Build {
  const manifest = buildManifestSchema.parse(JSON.parse(readFileSync(join(dir, MANIFEST_FILE), 'utf8')));
  const bodies = new Map(Object.keys(manifest.files).map((path) => [path, readFileSync(join(dir, path))]));
  return {
    dir,
    manifest,
    body(path) {
      const bytes = bodies.get(path);
      if (!bytes) throw new Error(`${path} is not an API file of the build in ${dir}`);
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

/** A name no record of any kind has: its search finds nothing. */
export const UNKNOWN_NAME = 'No Such Record';

/** The envelopes of the kinds' endpoints: every API file but the edge's fixed error bodies. */
export function envelopePaths(manifest: BuildManifest): string[] {
  return Object.keys(manifest.files).filter((path) => !path.startsWith('api/_edge/'));
}

/** The request target that the API answers with the API file at `path`, and its status. */
export function requestFor(path: string): { target: string; status: number } {
  if (path === RELEASES_LIST_PATH) return { target: '/api/releases', status: 200 };
  // A release's answers: the current layout below api/releases/<id>/, asked for with release=<id>.
  const [, release, current] = /^api\/releases\/([^/]+)\/(.+)$/.exec(path) ?? [];
  if (release && current) {
    const { target, status } = requestFor(`api/${current}`);
    return { target: `${target}${target.includes('?') ? '&' : '?'}release=${release}`, status };
  }
  const [, kind, rest = ''] = /^api\/([a-z]+)\/(.+)\.json$/.exec(path) ?? [];
  if (!kind) throw new Error(`${path} is not an API file`);
  if (rest === 'index') return { target: `/api/${kind}`, status: 200 };
  if (rest === 'not-found') return { target: `/api/${kind}?search=${encodeURIComponent(UNKNOWN_NAME)}`, status: 404 };
  if (rest === 'suggest/index') return { target: `/api/${kind}/suggest`, status: 200 };
  // "!" has an empty search key: the empty suggestion answer.
  if (rest === 'suggest/none') return { target: `/api/${kind}/suggest?search=%21`, status: 200 };
  const suggestion = /^suggest\/(?:level|key)\/(.+)$/.exec(rest)?.[1];
  if (suggestion) return { target: `/api/${kind}/suggest?search=${suggestion}`, status: 200 };
  const search = /^(?:level|name)\/(.+)$/.exec(rest)?.[1];
  if (!search) throw new Error(`${path} is not an API file`);
  return { target: `/api/${kind}?search=${search}`, status: 200 };
}
