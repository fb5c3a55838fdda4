// Lowercase hex, and the SHA-256 of bytes as lowercase hex: how bodies are named and checked,
// tokens keyed and bundles verified. Web Crypto only, so the edge, both runtimes and the
// client share this one copy (the build hashes synchronously with node:crypto: build/hash.ts).

/** Lowercase hex of bytes. */
export function hexOf(bytes: ArrayBuffer | Uint8Array): string {
  return Array.from(bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes), (byte) =>
    byte.toString(16).padStart(2, '0'),
  ).join('');
}

/** The SHA-256 of bytes, as lowercase hex. */
export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  return hexOf(await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>));
}
