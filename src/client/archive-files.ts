// What every archive reader of the client shares (archive.ts reads a .tar.gz, zip.ts a .zip):
// the caps an archive is held to (docs/limits.md, "Offline bundles"), the refusals that name
// them, and the files read so far, each checked by the gate before its bytes are read.
import { MAX_BUNDLE_ENTRIES } from '../contract/bundle-layout.ts';
import { BundleError } from './errors.ts';
import { INFLATE_SLICE } from './gzip.ts';

export type ArchiveFiles = Map<string, Uint8Array>;

/** Checks an entry by its path and size before its bytes are read: throws to refuse it. */
export type EntryCheck = (path: string, size: number) => void;

/**
 * The file that says which others an archive may hold (a bundle's manifest), read as early as
 * the format allows: a zip's first, its directory naming every entry before any is inflated; a
 * tar's in its place, the entries before it checked once it is read. `open` gets its bytes, or
 * undefined when the archive lacks it, and gives the check of every other file.
 */
export interface ArchiveGate {
  key: string;
  open(bytes: Uint8Array | undefined): EntryCheck;
}

export const MiB = 1024 * 1024;

/** Most entries an archive may hold (files, folders, links): the contract's, which the build keeps to. */
export const MAX_ENTRIES = MAX_BUNDLE_ENTRIES;

/**
 * Most bytes an archive may inflate to, whatever its size. The build's bundle inflates to 1.2 MB
 * (106 trees); synthetic content of 2,000 trees to 26 MB, so some 130 MB at 10,000 trees, the
 * largest content the benchmarks build. The client holds every file in memory: past 256 MiB a
 * bundle is no longer one to open whole.
 */
export const MAX_INFLATED_BYTES = 256 * MiB;

/**
 * Most times its own size an archive may inflate to. The build's bundles inflate 6.3 times (the
 * .zip) and 6.4 times (the .tar.gz), and 7 times at 2,000 trees: JSON, CSV and SQLite pages
 * compress alike at any size. 50 leaves room for far more regular files; a zip bomb inflates a
 * thousand times (deflate's most) to millions of times (overlapping entries).
 */
export const MAX_INFLATION_RATIO = 50;

/**
 * What any archive may inflate to, whatever its ratio: a small archive of very regular files
 * (a test's, a bundle of little content) may pass the ratio. 13 times today's bundle.
 */
export const INFLATION_ALLOWANCE = 16 * MiB;

/** The most an archive of `archiveSize` bytes may inflate to. */
export const inflationLimit = (archiveSize: number): number =>
  Math.min(MAX_INFLATED_BYTES, Math.max(INFLATION_ALLOWANCE, MAX_INFLATION_RATIO * archiveSize));

export const damaged = (reason: string, file?: string) => new BundleError(`The archive is damaged: ${reason}`, file);
export const figure = (count: number) => count.toLocaleString('en-US');

export function tooManyEntries(count?: number): BundleError {
  const held = count === undefined ? `more than ${figure(MAX_ENTRIES)} entries` : `${figure(count)} entries`;
  return new BundleError(`The archive holds ${held}; a bundle may hold ${figure(MAX_ENTRIES)} at most.`);
}

export function inflatesTooMuch(what: string, archiveSize: number): BundleError {
  return new BundleError(
    `The archive ${what} ${figure(inflationLimit(archiveSize))} bytes, the most an archive of ` +
      `${figure(archiveSize)} bytes may inflate to (${MAX_INFLATION_RATIO} times its size, at least ` +
      `${INFLATION_ALLOWANCE / MiB} MiB, at most ${MAX_INFLATED_BYTES / MiB} MiB): refused as a zip bomb.`,
  );
}

/**
 * The files read so far, by path (a leading ./ dropped): a path held twice refused, every file
 * checked by the gate before its bytes are read, those before the gate's key once it is read.
 */
/** A file's path: its name without a leading ./ (one inside a path stays). */
const pathOf = (name: string) => name.replace(/^\.\//, '');

export class FileSet {
  readonly #files: ArchiveFiles = new Map();
  readonly #paths = new Set<string>();
  readonly #gate: ArchiveGate | undefined;
  #check: EntryCheck | undefined;
  #waiting: [string, number][] = [];

  constructor(gate: ArchiveGate | undefined) {
    this.#gate = gate;
  }

  /** A file's name and size, before its bytes are read. */
  admit(name: string, size: number): void {
    const path = pathOf(name);
    // Two entries of one path: which one a reader keeps is up to the reader.
    if (this.#paths.has(path)) throw new BundleError(`The archive holds ${path} twice.`, path);
    this.#paths.add(path);
    if (this.#gate && path !== this.#gate.key) {
      if (this.#check) this.#check(path, size);
      else this.#waiting.push([path, size]);
    }
  }

  /** A file's name and bytes, once read. */
  add(name: string, bytes: Uint8Array): void {
    const path = pathOf(name);
    this.#files.set(path, bytes);
    if (path === this.#gate?.key) this.open(bytes);
  }

  /** Whether `name` is the gate's key. */
  isKey(name: string): boolean {
    return pathOf(name) === this.#gate?.key;
  }

  /** Opens the gate with its key's bytes (undefined: the archive lacks it), checking the files before it. */
  open(bytes: Uint8Array | undefined): void {
    if (!this.#gate || this.#check) return;
    const check = this.#gate.open(bytes);
    this.#check = check;
    for (const [path, size] of this.#waiting) check(path, size);
    this.#waiting = [];
  }

  finish(): ArchiveFiles {
    this.open(undefined);
    return this.#files;
  }
}

/**
 * Slices of compressed bytes into an inflater, the last one marked final. No bytes, no slice:
 * fflate inflates an empty final push to nothing, as it does no push.
 */
export function pushSlices(inflater: { push(chunk: Uint8Array, final: boolean): void }, bytes: Uint8Array): void {
  for (let at = 0; at < bytes.length; at += INFLATE_SLICE)
    inflater.push(bytes.subarray(at, at + INFLATE_SLICE), at + INFLATE_SLICE >= bytes.length);
}
