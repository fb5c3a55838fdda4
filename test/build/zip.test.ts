// The bundles' zip writer: archives any reader opens (fflate, the system's unzip, Python's
// zipfile), the same bytes for the same files in any time zone, each entry's date and mode fixed.
import { spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { unzipSync } from 'fflate';
import { afterEach, expect, test } from 'vitest';
import { writeZip, type ZipFile } from '../../src/build/zip.ts';
import { temporaryFolder } from '../support/temporary-folders.ts';

const stamp = { mode: 0o100644, date: { year: 2000, month: 1, day: 1 } };
const text = (value: string) => new TextEncoder().encode(value);
const files: ZipFile[] = [
  { name: 'README.md', bytes: text('# Tree farm data\n') },
  { name: 'api/trees/index.json', bytes: text(JSON.stringify({ data: Array(500).fill({ name: 'Oak Tree' }) })) },
  { name: 'empty.txt', bytes: new Uint8Array(0) },
  { name: 'data/chêne.json', bytes: text('[]') },
];
const decoded = (archive: Uint8Array) =>
  Object.fromEntries(
    Object.entries(unzipSync(archive)).map(([name, bytes]) => [name, new TextDecoder().decode(bytes)]),
  );

/** Runs `check` with the archive written to a file, then removes it. */
function withArchiveFile<T>(archive: Uint8Array, check: (file: string) => T): T {
  const dir = temporaryFolder('treefarm-zip-');
  try {
    writeFileSync(join(dir, 'bundle.zip'), archive);
    return check(join(dir, 'bundle.zip'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const zoneBefore = process.env.TZ;
afterEach(() => {
  if (zoneBefore === undefined) delete process.env.TZ;
  else process.env.TZ = zoneBefore;
});

test('every file comes back out with its bytes, in the given order', () => {
  const archive = writeZip(files, stamp);
  expect(decoded(archive)).toEqual(
    Object.fromEntries(files.map((file) => [file.name, new TextDecoder().decode(file.bytes)])),
  );
  expect(Object.keys(unzipSync(archive))).toEqual(files.map((file) => file.name));
});

test('the same files give the same bytes', () => {
  expect(Buffer.from(writeZip(files, stamp)).equals(Buffer.from(writeZip(files, stamp)))).toBe(true);
});

test('the same files give the same bytes in any time zone', () => {
  process.env.TZ = 'UTC';
  const utc = Buffer.from(writeZip(files, stamp));
  for (const zone of ['Pacific/Kiritimati', 'America/Los_Angeles', 'Asia/Kolkata']) {
    process.env.TZ = zone;
    expect(Buffer.from(writeZip(files, stamp)).equals(utc), zone).toBe(true);
  }
});

test('entries are deflated, dated 2000-01-01 00:00 and carry the Unix mode 644', () => {
  const archive = Buffer.from(writeZip(files, stamp));
  // The local header of the first file: method at 8, time at 10, date at 12.
  expect(archive.readUInt16LE(8)).toBe(8);
  expect(archive.readUInt16LE(10)).toBe(0);
  expect(archive.readUInt16LE(12)).toBe((20 << 9) | (1 << 5) | 1);
  const central = archive.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
  // Version made by: its high byte the host, 3 (Unix), whose mode the external attributes carry.
  expect(archive.readUInt8(central + 5)).toBe(3);
  expect(archive.readUInt32LE(central + 38) >>> 16).toBe(0o100644);
});

test('a name given twice is refused, naming it', () => {
  expect(() => writeZip([...files, { name: 'README.md', bytes: text('again') }], stamp)).toThrow(
    'README.md is given twice: a zip lists each name once.',
  );
});

test('the system unzip lists and checks the archive', () => {
  const result = withArchiveFile(writeZip(files, stamp), (file) =>
    spawnSync('unzip', ['-t', file], { encoding: 'utf8' }),
  );
  expect(result.stdout).toContain('No errors detected');
});

test("Python's zipfile reads every file back and finds no damage", () => {
  const script =
    'import sys, zipfile, json\n' +
    'z = zipfile.ZipFile(sys.argv[1])\n' +
    'print(json.dumps({"bad": z.testzip(), "names": z.namelist(), "sizes": [len(z.read(n)) for n in z.namelist()]}))';
  const result = withArchiveFile(writeZip(files, stamp), (file) =>
    spawnSync('python3', ['-I', '-c', script, file], { encoding: 'utf8' }),
  );
  expect(result.stderr).toBe('');
  expect(JSON.parse(result.stdout)).toEqual({
    bad: null,
    names: files.map((file) => file.name),
    sizes: files.map((file) => file.bytes.length),
  });
});
