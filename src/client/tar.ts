// A tar stream (POSIX ustar and pax, GNU long names), read as untrusted input while it inflates:
// each file's bytes go straight into a buffer of the size its header gives, so reading costs the
// files and no copy of the tar. A bundle holds files and folders only: links, devices, FIFOs and
// any other entry type are refused, named, for `tar -x` would make them; so is a file whose name
// ends in "/", and anything after the end-of-archive marker, which `tar -x` never reads.
import { BundleError } from './errors.ts';

const BLOCK = 512;

/** The longest pax header or GNU long name read: a path of 4,096 bytes fits many times over. */
export const MAX_EXTENDED_HEADER_BYTES = 64 * 1024;

/** A file or folder of the tar, its pax and GNU long-name headers applied. */
export interface TarEntry {
  name: string;
  type: 'file' | 'directory';
  size: number;
  /** Where its data starts in the tar. */
  offset: number;
}

export interface TarVisitor {
  /** Each file's and folder's header, before its data is read: throws to refuse it. */
  entry(entry: TarEntry): void;
  /** Each file's bytes, whole. */
  file(name: string, bytes: Uint8Array): void;
}

/** The entry types (typeflag) a bundle may hold; the others are named when refused. */
const FILE_TYPES = new Set(['0', '\0', '7']);
const DIRECTORY = '5';
const REFUSED_TYPES: Record<string, string> = {
  '1': 'a hard link',
  '2': 'a symbolic link',
  '3': 'a character device',
  '4': 'a block device',
  '6': 'a FIFO',
};
/** Headers that describe the entry after them: pax (one entry, or all after it) and GNU long names. */
const PAX = 'x';
const PAX_GLOBAL = 'g';
const GNU_LONG_NAME = 'L';
const GNU_LONG_LINK = 'K';
const EXTENDED = [PAX, PAX_GLOBAL, GNU_LONG_NAME, GNU_LONG_LINK] as const;
const isExtended = (type: string): type is (typeof EXTENDED)[number] => (EXTENDED as readonly string[]).includes(type);

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
/** A NUL-terminated field. */
const field = (block: Uint8Array, at: number, length: number) => {
  const bytes = block.subarray(at, at + length);
  const end = bytes.indexOf(0);
  return text(end === -1 ? bytes : bytes.subarray(0, end));
};

/** The size field (124, 12 bytes): octal, or base-256 when its first bit is set (GNU, for 8 GiB and more). */
function sizeOf(block: Uint8Array, name: string): number {
  const first = block[124] as number;
  if (first & 0x80) {
    if (first === 0xff) throw new Error(`the tar header of ${name} gives a negative size.`);
    let size = first & 0x7f;
    for (const byte of block.subarray(125, 136)) size = size * 256 + byte;
    return size;
  }
  return octal(block, 124, 12, `the tar header of ${name} gives no size.`);
}

function octal(block: Uint8Array, at: number, length: number, error: string): number {
  const digits = field(block, at, length).trim();
  if (!/^[0-7]+$/.test(digits)) throw new Error(error);
  return Number.parseInt(digits, 8);
}

/** Whether the header's checksum (148, 8 bytes) is the sum of its bytes, the field as spaces, signed or not. */
function checksumHolds(block: Uint8Array): boolean {
  const expected = octal(block, 148, 8, 'a tar header has no checksum.');
  let unsigned = 0;
  let signed = 0;
  block.forEach((byte, index) => {
    const value = index >= 148 && index < 156 ? 0x20 : byte;
    unsigned += value;
    signed += value > 127 ? value - 256 : value;
  });
  return expected === unsigned || expected === signed;
}

/** The records of a pax header (`<length> <key>=<value>\n`). */
function paxRecords(bytes: Uint8Array): Map<string, string> {
  const records = new Map<string, string>();
  for (let at = 0; at < bytes.length && bytes[at] !== 0; ) {
    const space = bytes.indexOf(0x20, at);
    const length = Number(text(bytes.subarray(at, space)));
    const record = bytes.subarray(space + 1, at + length);
    const equals = record.indexOf(0x3d);
    if (space === -1 || !Number.isSafeInteger(length) || at + length > bytes.length || equals === -1)
      throw new Error('a pax header of its tar is malformed.');
    if (record[record.length - 1] !== 0x0a) throw new Error('a pax header of its tar is malformed.');
    records.set(text(record.subarray(0, equals)), text(record.subarray(equals + 1, record.length - 1)));
    at += length;
  }
  for (const key of records.keys())
    if (key.startsWith('GNU.sparse.')) throw new BundleError('The archive holds a sparse file: a bundle never does.');
  return records;
}

/** What the headers before an entry say of it. */
interface Overrides {
  path?: string | undefined;
  linkpath?: string | undefined;
  size?: string | undefined;
}

/** The data being read: a file's, or an extended header's (its type flag). */
interface Pending {
  name: string;
  type: 'file' | typeof PAX | typeof PAX_GLOBAL | typeof GNU_LONG_NAME | typeof GNU_LONG_LINK;
  bytes: Uint8Array;
  filled: number;
}

/** Reads a tar from its chunks, in order, handing each file and folder to a visitor. */
export class TarReader {
  readonly #visitor: TarVisitor;
  /** Bytes of the tar read so far. */
  #position = 0;
  /** The header block being gathered. */
  readonly #block = new Uint8Array(BLOCK);
  #blockFilled = 0;
  /** The file or extended header whose data is being read, and how much of it is in. */
  #data: Pending | undefined;
  /** Bytes of padding left before the next header. */
  #padding = 0;
  #ended = false;
  #global: Overrides = {};
  #next: Overrides = {};

  constructor(visitor: TarVisitor) {
    this.#visitor = visitor;
  }

  write(chunk: Uint8Array): void {
    let at = 0;
    while (at < chunk.length) {
      const rest = chunk.subarray(at);
      if (this.#ended) {
        // `tar -x` stops at the marker: anything past it would be read here and not there.
        if (rest.some((byte) => byte !== 0))
          throw new BundleError("The archive holds data after its tar's end-of-archive marker, which tar never reads.");
        this.#position += rest.length;
        return;
      }
      const taken = this.#padding > 0 ? this.#skip(rest) : this.#data ? this.#fill(rest) : this.#gather(rest);
      at += taken;
      this.#position += taken;
    }
  }

  /** The tar has no more bytes: it must not end within an entry. */
  end(): void {
    if (this.#data || this.#blockFilled > 0 || this.#padding > 0) throw new Error('its tar ends within an entry.');
  }

  #skip(rest: Uint8Array): number {
    const taken = Math.min(this.#padding, rest.length);
    this.#padding -= taken;
    return taken;
  }

  #fill(rest: Uint8Array): number {
    const data = this.#data as Pending;
    const taken = Math.min(data.bytes.length - data.filled, rest.length);
    data.bytes.set(rest.subarray(0, taken), data.filled);
    data.filled += taken;
    if (data.filled === data.bytes.length) this.#complete(data);
    return taken;
  }

  #gather(rest: Uint8Array): number {
    const taken = Math.min(BLOCK - this.#blockFilled, rest.length);
    this.#block.set(rest.subarray(0, taken), this.#blockFilled);
    this.#blockFilled += taken;
    if (this.#blockFilled === BLOCK) {
      this.#blockFilled = 0;
      this.#header(this.#block, this.#position + taken);
    }
    return taken;
  }

  #complete(data: Pending): void {
    this.#data = undefined;
    this.#padding = (BLOCK - (data.bytes.length % BLOCK)) % BLOCK;
    if (data.type === 'file') this.#visitor.file(data.name, data.bytes);
    else this.#extended(data.type, data.bytes);
  }

  /** A header block; `offset` is where the data after it starts. */
  #header(block: Uint8Array, offset: number): void {
    if (block.every((byte) => byte === 0)) {
      this.#ended = true;
      return;
    }
    if (!checksumHolds(block)) throw new Error(`the tar header at byte ${offset - BLOCK} fails its checksum.`);
    const type = String.fromCharCode(block[156] as number);
    // POSIX ustar splits a long name in two: a prefix (345, 155 bytes) and the name.
    const ustar = field(block, 257, 6) === 'ustar' && field(block, 263, 2) === '00';
    const prefix = ustar ? field(block, 345, 155) : '';
    const headerName = prefix ? `${prefix}/${field(block, 0, 100)}` : field(block, 0, 100);
    const size = sizeOf(block, headerName);
    if (isExtended(type)) {
      if (size > MAX_EXTENDED_HEADER_BYTES)
        throw new BundleError(
          `The archive's tar has an extended header of ${size.toLocaleString('en-US')} bytes, more than the ` +
            `${MAX_EXTENDED_HEADER_BYTES.toLocaleString('en-US')} a bundle's may have.`,
        );
      this.#read(type, headerName, size);
      return;
    }
    const overrides = { ...this.#global, ...this.#next };
    this.#next = {};
    const name = overrides.path ?? headerName;
    const refused = REFUSED_TYPES[type];
    if (refused !== undefined) {
      const target = overrides.linkpath ?? field(block, 157, 100);
      const to = type === '1' || type === '2' ? ` to ${target}` : '';
      throw new BundleError(`${name} is ${refused}${to}: a bundle holds only files and folders.`, name);
    }
    const entrySize = overrides.size === undefined ? size : Number(overrides.size);
    if (!Number.isSafeInteger(entrySize) || entrySize < 0) throw new Error(`the pax header of ${name} gives no size.`);
    if (type === DIRECTORY) {
      if (entrySize > 0)
        throw new BundleError(`${name} is a folder with ${entrySize} bytes of data: a folder has none.`, name);
      this.#visitor.entry({ name, type: 'directory', size: 0, offset });
      return;
    }
    if (!FILE_TYPES.has(type))
      throw new BundleError(`${name} has tar entry type "${type}": a bundle holds only files and folders.`, name);
    if (name.endsWith('/'))
      throw new BundleError(
        `${name} is a file named as a folder (its name ends in "/"): tar makes a folder of it.`,
        name,
      );
    this.#visitor.entry({ name, type: 'file', size: entrySize, offset });
    this.#read('file', name, entrySize);
  }

  #read(type: Pending['type'], name: string, size: number): void {
    this.#data = { name, type, bytes: new Uint8Array(size), filled: 0 };
    if (size === 0) this.#complete(this.#data);
  }

  /** A pax header or GNU long name, read whole: what it says of the entry (or entries) after it. */
  #extended(type: Exclude<Pending['type'], 'file'>, bytes: Uint8Array): void {
    if (type === GNU_LONG_NAME) this.#next.path = field(bytes, 0, bytes.length);
    else if (type === GNU_LONG_LINK) this.#next.linkpath = field(bytes, 0, bytes.length);
    else {
      const records = paxRecords(bytes);
      const overrides = type === PAX_GLOBAL ? this.#global : this.#next;
      for (const key of ['path', 'linkpath', 'size'] as const) {
        const value = records.get(key);
        if (value !== undefined) overrides[key] = value;
      }
    }
  }
}
