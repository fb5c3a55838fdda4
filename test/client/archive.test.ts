// Reading archives (src/client/archive.ts) that the build's packers never make: entries in
// several chunks, folder and link entries, "./" prefixes. Bundles from elsewhere may have any of these.
import { gzipSync, zipSync } from 'fflate';
import tar from 'tar-stream';
import { describe, expect, test } from 'vitest';
import { packTarGz } from '../../src/build/bundles.ts';
import { readArchive } from '../../src/client/archive.ts';
import { BundleError } from '../../src/client/errors.ts';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('readArchive', () => {
  test('a file larger than one chunk of the tar stream is read whole', async () => {
    const large = Uint8Array.from({ length: 300_000 }, (_, index) => (index * 7) % 251);
    const files = await readArchive(await packTarGz([{ name: 'data/large.bin', bytes: large }]));
    expect(files.get('data/large.bin')?.length).toBe(large.length);
    expect(Buffer.from(files.get('data/large.bin') ?? []).equals(Buffer.from(large))).toBe(true);
  });

  test('folder entries are left out and a leading ./ is dropped', async () => {
    const zip = zipSync({ 'api/': new Uint8Array(0), './manifest.json': bytes('{}'), 'api/x.json': bytes('[]') });
    const files = await readArchive(zip);
    expect([...files.keys()].sort()).toEqual(['api/x.json', 'manifest.json']);
  });

  test('only a leading ./ is dropped: one inside a path stays', async () => {
    const files = await readArchive(zipSync({ 'notes/v2./read.me': bytes('x') }));
    expect([...files.keys()]).toEqual(['notes/v2./read.me']);
  });

  test('in a tar, only files are read: links and folders are left out', async () => {
    const pack = tar.pack();
    pack.entry({ name: 'api', type: 'directory' });
    pack.entry({ name: 'api/x.json' }, '[]');
    pack.entry({ name: 'api/link.json', type: 'symlink', linkname: 'x.json' });
    pack.finalize();
    const chunks: Uint8Array[] = [];
    for await (const chunk of pack as AsyncIterable<Uint8Array>) chunks.push(chunk);
    const files = await readArchive(gzipSync(Buffer.concat(chunks)));
    expect([...files.keys()]).toEqual(['api/x.json']);
  });

  test('an archive that starts like one but is damaged: "The archive is damaged"', async () => {
    const zip = zipSync({ 'a.json': bytes('{"a":1}') });
    await expect(readArchive(zip.subarray(0, 20))).rejects.toThrow(/^The archive is damaged: /);
    await expect(readArchive(zip.subarray(0, 20))).rejects.toBeInstanceOf(BundleError);
  });
});
