// Reads the files of a .tar.gz or .zip archive into memory, by path, as untrusted input: an
// archive from anywhere may be a zip bomb, so entries and inflated bytes are capped, and the
// caps are checked while inflating, a slice of compressed bytes at a time, so a bomb is never
// inflated far past them. Each file goes straight into a buffer of its own size, so reading
// costs the files and no copy of the archive's contents. What is read is what `tar -x` and
// `unzip` would make: anything they would make otherwise (links, devices, entries hidden from
// one reader, damaged bytes) is refused. Uses fflate, which runs in browsers as well as in Node.
// The caps are stated in docs/limits.md.
import { archiveFormat } from '../contract/bundle-layout.ts';
import {
  type ArchiveFiles,
  type ArchiveGate,
  damaged,
  FileSet,
  figure,
  inflatesTooMuch,
  inflationLimit,
  MAX_ENTRIES,
  tooManyEntries,
} from './archive-files.ts';
import { BundleError } from './errors.ts';
import { gunzip } from './gzip.ts';
import { TarReader } from './tar.ts';
import { readZip } from './zip.ts';

export {
  type ArchiveFiles,
  type ArchiveGate,
  type EntryCheck,
  INFLATION_ALLOWANCE,
  inflationLimit,
  MAX_INFLATED_BYTES,
  MAX_INFLATION_RATIO,
} from './archive-files.ts';

/** The archive's files by path; with a gate, each checked by it before its bytes are read. */
export async function readArchive(bytes: Uint8Array, gate?: ArchiveGate): Promise<ArchiveFiles> {
  const format = archiveFormat(bytes);
  const files = new FileSet(gate);
  try {
    if (format === 'zip') readZip(bytes, inflationLimit(bytes.length), files);
    else if (format === 'tar.gz') readTarGz(bytes, inflationLimit(bytes.length), files);
    else throw new BundleError('Not a bundle: the file is neither a .tar.gz nor a .zip archive.');
  } catch (error) {
    if (error instanceof BundleError) throw error;
    throw damaged((error as Error).message);
  }
  return files.finish();
}

/** A .tar.gz, its tar read as it inflates, refused as soon as it inflates or declares past `limit`. */
function readTarGz(bytes: Uint8Array, limit: number, files: FileSet): void {
  let entries = 0;
  const tar = new TarReader({
    entry({ name, type, size, offset }) {
      if (++entries > MAX_ENTRIES) throw tooManyEntries();
      if (offset + size > limit) throw inflatesTooMuch(`declares ${name} of ${figure(size)} bytes, past`, bytes.length);
      if (type === 'file') files.admit(name, size);
    },
    file: (name, data) => files.add(name, data),
  });
  let inflated = 0;
  gunzip(bytes, (chunk) => {
    inflated += chunk.length;
    if (inflated > limit) throw inflatesTooMuch('inflates past', bytes.length);
    tar.write(chunk);
  });
  tar.end();
}
