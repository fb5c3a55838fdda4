// An R2 bucket in memory, standing in for the binding: list (each object's etag the MD5 of its
// bytes, as R2's) and put as the deploy's upload uses them (WritableBucket), get as the Worker
// reads. `putsLeft` makes a put fail once that many have gone through, as a dropped connection
// would stop an upload partway.
import { createHash } from 'node:crypto';
import type { WritableBucket } from '../../src/cloudflare/bucket-objects.ts';

export interface MemoryBucket extends WritableBucket {
  objects: Map<string, Uint8Array>;
  /** How many puts succeed before one fails; Infinity by default. */
  putsLeft: number;
  get(key: string): Promise<{ arrayBuffer(): Promise<ArrayBuffer> } | null>;
}

export function memoryBucket(): MemoryBucket {
  const objects = new Map<string, Uint8Array>();
  const bucket: MemoryBucket = {
    objects,
    putsLeft: Number.POSITIVE_INFINITY,
    async list() {
      const etag = (bytes: Uint8Array) => createHash('md5').update(bytes).digest('hex');
      return { objects: [...objects].map(([key, bytes]) => ({ key, etag: etag(bytes) })), truncated: false };
    },
    async put(key, value) {
      if (bucket.putsLeft <= 0) throw new Error('Network connection lost.');
      bucket.putsLeft--;
      objects.set(key, new Uint8Array(value.slice(0)));
      return {};
    },
    async get(key) {
      const bytes = objects.get(key);
      return bytes ? { arrayBuffer: async () => bytes.slice().buffer } : null;
    },
  };
  return bucket;
}
