// The offline bundles: what they hold, that the same content gives the same bytes, and that
// dist/downloads/ holds the archives of the built version, with the API files of dist/.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { unzipSync } from 'fflate';
import tar from 'tar-stream';
import { gunzipSync } from 'node:zlib';
import { beforeAll, describe, expect, test } from 'vitest';
import { bundleEntries, createDownloads } from '../../src/build/bundles.ts';
import type { NamedBytes } from '../../src/build/named-bytes.ts';
import type { Latest } from '../../src/contract/bundle-layout.ts';
import { projectDir } from '../../src/cli/project-dir.ts';
import { loadContent, type Content } from '../../src/build/content.ts';
import { OPENAPI_FILE, schemaPath } from '../../src/contract/build-files.ts';
import {
  BUNDLE_BODIES,
  BUNDLE_MANIFEST,
  bundleFileName,
  bundleIndexPath,
  type BundleIndex,
  type BundleReleaseIndex,
  csvPath,
  dataPath,
  DOWNLOADS_DIR,
  LATEST_FILE,
  PUBLISHED_BUNDLES,
  SQLITE_FILE,
} from '../../src/contract/bundle-layout.ts';
import { readArchive } from '../../src/client/archive.ts';
import { parseCommandLine } from '../../src/client/cli/args.ts';
import { listRoute } from '../../src/contract/paths.ts';
import { bundleIndex } from '../../src/client/bundle.ts';
import { routeText, scopeRoutes, storedBytes } from '../support/dist-routes.ts';
import { loadReleases, type Release } from '../../src/build/releases.ts';
import { kinds } from '../../src/schema/kinds.ts';
import { buildManifestSchema, manifestSchema } from '../../src/schema/manifest.ts';

const contentDir = join(projectDir, 'content');
const distDir = join(projectDir, 'dist');
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const text = (bytes: Uint8Array | undefined) => new TextDecoder().decode(bytes);
const byName = (files: NamedBytes[]) => new Map(files.map((file) => [file.name, file.bytes]));

let content: Content;
let releases: Release[];
let downloads: Map<string, Uint8Array>;
let entries: Map<string, Uint8Array>;
beforeAll(async () => {
  content = loadContent(contentDir);
  releases = loadReleases(projectDir);
  downloads = byName(await createDownloads(content, releases));
  entries = byName(bundleEntries(content, releases));
});

const archiveOf = (format: 'tar.gz' | 'zip') =>
  downloads.get(bundleFileName(content.version, format)) ?? new Uint8Array();

describe('reproducible', () => {
  test('the same content gives byte-identical archives and latest.json', async () => {
    const again = byName(await createDownloads(loadContent(contentDir), loadReleases(projectDir)));
    expect([...again.keys()]).toEqual([...downloads.keys()]);
    for (const [name, bytes] of downloads)
      expect({ name, sha256: sha256(again.get(name) ?? new Uint8Array()) }).toEqual({ name, sha256: sha256(bytes) });
  });

  test('the build (another process) wrote the same archives and latest.json to dist/downloads/, byte for byte', () => {
    for (const [name, bytes] of downloads)
      expect({ name, sha256: sha256(readFileSync(join(distDir, DOWNLOADS_DIR, name))) }).toEqual({
        name,
        sha256: sha256(bytes),
      });
  });

  test('dist/downloads/ holds the archives of the built version, as its latest.json describes them', () => {
    const built = buildManifestSchema.parse(JSON.parse(readFileSync(join(distDir, 'manifest.json'), 'utf8')));
    const names = [`treefarm-data-${built.version}.tar.gz`, `treefarm-data-${built.version}.zip`];
    const written = readdirSync(join(distDir, DOWNLOADS_DIR)).filter((name) => name !== 'index.html');
    expect(written.sort()).toEqual([...names, 'latest.json'].sort());
    const latest = JSON.parse(readFileSync(join(distDir, DOWNLOADS_DIR, 'latest.json'), 'utf8')) as Latest;
    expect(latest.version).toBe(built.version);
    expect(latest.bundles).toEqual(
      names.map((name) => {
        const bytes = readFileSync(join(distDir, DOWNLOADS_DIR, name));
        return { name, format: name.endsWith('.zip') ? 'zip' : 'tar.gz', size: bytes.length, sha256: sha256(bytes) };
      }),
    );
  });

  test.each(['tar.gz', 'zip'])(
    'the %s archive in dist/downloads/ answers every route of dist/, of every scope, with the same bytes',
    async (format) => {
      const built = buildManifestSchema.parse(JSON.parse(readFileSync(join(distDir, 'manifest.json'), 'utf8')));
      const files = await readArchive(
        readFileSync(join(distDir, DOWNLOADS_DIR, `treefarm-data-${built.version}.${format}`)),
      );
      const bundled = bundleIndex(files);
      for (const release of [undefined, ...built.releases.map((known) => known.id)]) {
        const root = await bundled.root(release);
        if (!root) throw new Error(`the bundle has no index of ${release ?? 'the current data'}`);
        const bundledRoutes = new Map<string, string>();
        for (let n = 0; n < root.shards; n++)
          for (const [route, body] of Object.entries(await bundled.shard(release, n))) bundledRoutes.set(route, body);
        const distRoutes = scopeRoutes(release);
        expect([...bundledRoutes.keys()].sort()).toEqual([...distRoutes.keys()].sort());
        for (const [route, stored] of distRoutes)
          expect({ release, route, text: await bundled.text(bundledRoutes.get(route) ?? '') }).toEqual({
            release,
            route,
            text: storedBytes(stored).toString('utf8'),
          });
      }
    },
  );

  test('tar entries are sorted, each folder before its files, with a fixed time, owner and modes', async () => {
    const headers: tar.Header[] = [];
    const extract = tar.extract();
    const reading = (async () => {
      for await (const entry of extract) {
        headers.push(entry.header);
        entry.resume();
      }
    })();
    extract.end(gunzipSync(archiveOf('tar.gz')));
    await reading;
    const files = headers.filter((header) => header.type === 'file');
    expect(files.map((header) => header.name)).toEqual([...entries.keys()]);
    for (const header of headers) {
      const folder = header.name.replace(/\/$/, '').split('/').slice(0, -1).join('/');
      if (folder)
        expect(headers.findIndex((other) => other.name === `${folder}/`)).toBeLessThan(headers.indexOf(header));
      expect({ name: header.name, mtime: header.mtime?.toISOString(), uid: header.uid, gid: header.gid }).toEqual({
        name: header.name,
        mtime: '2000-01-01T00:00:00.000Z',
        uid: 0,
        gid: 0,
      });
      expect({ name: header.name, mode: header.mode }).toEqual({
        name: header.name,
        mode: header.type === 'directory' ? 0o755 : 0o644,
      });
    }
  });

  test('the gzip header carries no time and a fixed OS byte', () => {
    const header = archiveOf('tar.gz').subarray(0, 10);
    expect([...header.subarray(4, 8)]).toEqual([0, 0, 0, 0]);
    expect(header[9]).toBe(3);
  });

  test('zip entries are sorted', () => {
    const names: string[] = [];
    unzipSync(archiveOf('zip'), {
      filter: (file) => {
        names.push(file.name);
        return false;
      },
    });
    expect(names).toEqual([...entries.keys()]);
  });
});

describe('a bundle', () => {
  test.each(['tar.gz', 'zip'] as const)('%s holds the entries of the bundle, byte for byte', async (format) => {
    const files = await readArchive(archiveOf(format));
    expect([...files.keys()]).toEqual([...entries.keys()]);
    for (const [name, bytes] of entries)
      expect({ name, sha256: sha256(files.get(name) ?? new Uint8Array()) }).toEqual({ name, sha256: sha256(bytes) });
  });

  test('data/<kind>.json is the plain record array of the API list, in API order', () => {
    for (const kind of kinds) {
      const listed = (JSON.parse(routeText(listRoute(kind.id))) as { data: unknown[] }).data;
      expect(JSON.parse(text(entries.get(dataPath(kind.id))))).toEqual(listed);
      expect(text(entries.get(dataPath(kind.id)))).toContain(
        JSON.stringify(listed[0], null, 2).split('\n').join('\n  '),
      );
    }
  });

  test('api/ holds the bodies file and one index per scope: the current data and each release', () => {
    const apiEntries = [...entries.keys()].filter((name) => name.startsWith('api/'));
    expect(apiEntries.sort()).toEqual(
      [BUNDLE_BODIES, ...[undefined, ...releases.map((release) => release.id)].map(bundleIndexPath)].sort(),
    );
  });

  test('api/bodies.jsonl holds each distinct body once, one per line', () => {
    const lines = text(entries.get(BUNDLE_BODIES)).split('\n');
    expect(lines.pop()).toBe('');
    expect(new Set(lines).size).toBe(lines.length);
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
  });

  test("a release's index lists only the routes where it differs from the current data", () => {
    const current = JSON.parse(text(entries.get(bundleIndexPath(undefined)))) as BundleIndex;
    for (const release of releases) {
      const index = JSON.parse(text(entries.get(bundleIndexPath(release.id)))) as BundleReleaseIndex;
      expect(index.version).toBe(release.version);
      const distRoutes = scopeRoutes(release.id);
      for (const [route, body] of Object.entries(index.routes)) {
        expect({ route, differs: body !== current.routes[route] }).toEqual({ route, differs: true });
        expect({ route, inRelease: body !== null }).toEqual({ route, inRelease: distRoutes.has(route) });
      }
      expect(Object.keys(index.routes).length).toBeLessThan(Object.keys(current.routes).length / 2);
    }
  });

  test('it holds the SQLite database and a CSV file per kind', () => {
    expect([...entries.keys()]).toEqual(
      expect.arrayContaining([SQLITE_FILE, ...kinds.map((kind) => csvPath(kind.id))]),
    );
    expect(text(entries.get(SQLITE_FILE)?.subarray(0, 15))).toBe('SQLite format 3');
  });

  test('schemas/ and openapi.json are the files published at the site root', () => {
    for (const path of [OPENAPI_FILE, ...kinds.map((kind) => schemaPath(kind.id))]) {
      expect({ path, body: text(entries.get(path)) }).toEqual({
        path,
        body: readFileSync(join(distDir, path), 'utf8'),
      });
    }
  });

  test('manifest.json gives the version, the counts and the sha256 and size of every other file', () => {
    const manifest = manifestSchema.parse(JSON.parse(text(entries.get(BUNDLE_MANIFEST))));
    expect(manifest.version).toBe(content.version);
    expect(manifest.counts).toEqual(
      Object.fromEntries(kinds.map((kind) => [kind.id, content.entries[kind.id].length])),
    );
    const others = [...entries].filter(([name]) => name !== BUNDLE_MANIFEST);
    expect(Object.keys(manifest.files)).toEqual(others.map(([name]) => name));
    for (const [name, bytes] of others)
      expect(manifest.files[name]).toEqual({ sha256: sha256(bytes), size: bytes.length });
  });

  test('the version is the data version of dist/manifest.json and the archive names', () => {
    const built = buildManifestSchema.parse(JSON.parse(readFileSync(join(distDir, 'manifest.json'), 'utf8')));
    expect(built.version).toBe(content.version);
    expect([...downloads.keys()]).toEqual([
      `treefarm-data-${content.version}.tar.gz`,
      `treefarm-data-${content.version}.zip`,
      LATEST_FILE,
    ]);
  });

  test('README.md names the version and the layout', () => {
    const readme = text(entries.get('README.md'));
    for (const part of [
      content.version,
      'data/',
      'api/',
      SQLITE_FILE,
      'csv/',
      'schemas/',
      'openapi.json',
      'manifest.json',
    ])
      expect(readme).toContain(part);
  });

  test("README.md says to check the archive against the site's published SHA-256, with a command the CLI takes", () => {
    const readme = text(entries.get('README.md'));
    for (const part of [
      PUBLISHED_BUNDLES,
      '--url https://<site>',
      'openBundle(file, { sha256 })',
      'npm run bundle:verify -- <archive> --sha256 <digest>',
    ])
      expect(readme).toContain(part);
    const command = /`npx treefarm ([^`]*--sha256 <digest>)`/.exec(readme)?.[1] ?? '';
    const digest = 'ab'.repeat(32);
    expect(parseCommandLine(command.replace('<digest>', digest).split(' '))).toMatchObject({
      command: { name: 'records', kind: 'trees' },
      bundle: bundleFileName(content.version, 'tar.gz'),
      sha256: digest,
    });
  });
});

test('latest.json names each archive with its format, size and sha256', () => {
  const latest = JSON.parse(text(downloads.get(LATEST_FILE))) as Latest;
  expect(latest.version).toBe(content.version);
  expect(latest.bundles).toEqual(
    (['tar.gz', 'zip'] as const).map((format) => ({
      name: bundleFileName(content.version, format),
      format,
      size: archiveOf(format).length,
      sha256: sha256(archiveOf(format)),
    })),
  );
});
