// The build's SHA-256, synchronous (node:crypto) where it names and checks thousands of files;
// it gives the same lowercase hex as src/contract/sha256.ts, which the runtimes check with.
import { createHash } from 'node:crypto';

/** The SHA-256 of bytes or of a string's UTF-8, as lowercase hex. */
export const sha256HexSync = (data: Uint8Array | string): string => createHash('sha256').update(data).digest('hex');
