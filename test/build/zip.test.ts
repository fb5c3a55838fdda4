// The bundles' zip writer: archives any reader opens, the same bytes for the same files, and
// ZIP64 end records once the files outnumber what the classic end record can count.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { unzipSync } from 'fflate';
import { expect, test } from 'vitest';
import { dosDateTime, writeZip, type ZipFile } from '../../src/build/zip.ts';

const options = { os: 3, attrs: 0o100644 * 0x10000, ...dosDateTime(2000, 1, 1) };
const text = (value: string) => new TextEncoder().encode(value);
const files: ZipFile[] = [
  { name: 'README.md', bytes: text('# Tree farm data\n') },
  { name: 'api/trees/index.json', bytes: text(JSON.stringify({ data: Array(500).fill({ name: 'Oak Tree' }) })) },
  { name: 'empty.txt', bytes: new Uint8Array(0) },
];
const decoded = (archive: Uint8Array) =>
  Object.fromEntries(
    Object.entries(unzipSync(archive)).map(([name, bytes]) => [name, new TextDecoder().decode(bytes)]),
  );

test('every file comes back out with its bytes', () => {
  expect(decoded(writeZip(files, options))).toEqual(
    Object.fromEntries(files.map((file) => [file.name, new TextDecoder().decode(file.bytes)])),
  );
});

test('the same files give the same bytes', () => {
  expect(Buffer.from(writeZip(files, options)).equals(Buffer.from(writeZip(files, options)))).toBe(true);
});

test('entries are deflated, dated 2000-01-01 00:00 and carry the Unix mode 644', () => {
  const archive = Buffer.from(writeZip(files, options));
  // The local header of the first file: method at 8, time at 10, date at 12.
  expect(archive.readUInt16LE(8)).toBe(8);
  expect(archive.readUInt16LE(10)).toBe(0);
  expect(archive.readUInt16LE(12)).toBe((20 << 9) | (1 << 5) | 1);
  const central = archive.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
  expect(archive.readUInt32LE(central + 38) >>> 16).toBe(0o100644);
});

test('the system unzip lists and checks the archive', () => {
  const dir = mkdtempSync(join(tmpdir(), 'treefarm-zip-'));
  try {
    writeFileSync(join(dir, 'bundle.zip'), writeZip(files, options));
    const result = spawnSync('unzip', ['-t', join(dir, 'bundle.zip')], { encoding: 'utf8' });
    expect(result.stdout).toContain('No errors detected');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// 70,000 deflate calls take seconds on a busy machine: a generous timeout, not a timing check.
test('past 65,535 files the archive has ZIP64 end records, and every file is listed', { timeout: 180_000 }, () => {
  const many = Array.from({ length: 70_000 }, (_unused, index) => ({ name: `f/${index}`, bytes: text(`${index}`) }));
  const archive = Buffer.from(writeZip(many, options));
  expect(archive.indexOf(Buffer.from([0x50, 0x4b, 0x06, 0x06]))).toBeGreaterThan(0);
  const listed: string[] = [];
  const read = unzipSync(archive, {
    filter: (file) => {
      listed.push(file.name);
      return file.name === 'f/69999';
    },
  });
  expect(listed).toHaveLength(70_000);
  expect(new TextDecoder().decode(read['f/69999'])).toBe('69999');
});
