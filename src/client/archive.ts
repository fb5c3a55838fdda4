// Reads the files of a .tar.gz or .zip archive into memory, by path. Uses fflate and
// tar-stream, both of which run in browsers as well as in Node.
import { gunzipSync, unzipSync } from 'fflate';
import tar from 'tar-stream';
import { archiveFormat } from '../contract/bundle-layout.ts';
import { BundleError } from './errors.ts';

export type ArchiveFiles = Map<string, Uint8Array>;

export async function readArchive(bytes: Uint8Array): Promise<ArchiveFiles> {
  const format = archiveFormat(bytes);
  try {
    if (format === 'zip') return withoutDirectories(Object.entries(unzipSync(bytes)));
    if (format === 'tar.gz') return withoutDirectories(await readTar(gunzipSync(bytes)));
  } catch (error) {
    throw new BundleError(`The archive is damaged: ${(error as Error).message}`);
  }
  throw new BundleError('Not a bundle: the file is neither a .tar.gz nor a .zip archive.');
}

async function readTar(bytes: Uint8Array): Promise<[string, Uint8Array][]> {
  const extract = tar.extract();
  const files: [string, Uint8Array][] = [];
  const reading = (async () => {
    for await (const entry of extract) {
      const chunks: Uint8Array[] = [];
      for await (const chunk of entry as AsyncIterable<Uint8Array>) chunks.push(chunk);
      if (entry.header.type === 'file') files.push([entry.header.name, concat(chunks)]);
    }
  })();
  extract.end(bytes);
  await reading;
  return files;
}

function concat(chunks: Uint8Array[]): Uint8Array {
  const bytes = new Uint8Array(chunks.reduce((size, chunk) => size + chunk.length, 0));
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  return bytes;
}

function withoutDirectories(entries: [string, Uint8Array][]): ArchiveFiles {
  return new Map(
    entries.filter(([path]) => !path.endsWith('/')).map(([path, bytes]) => [path.replace(/^\.\//, ''), bytes]),
  );
}
