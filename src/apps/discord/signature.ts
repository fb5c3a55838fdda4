// Discord signs each interaction it sends with the application's Ed25519 key: the signature
// (X-Signature-Ed25519, hex) covers X-Signature-Timestamp followed by the raw body. Checked with
// Web Crypto alone, so the same code runs in Node and in workerd with no native module.

/** Ed25519's sizes: a public key of 32 bytes, a signature of 64. */
const KEY_BYTES = 32;
const SIGNATURE_BYTES = 64;

/** The bytes of `length` bytes' worth of hex digits; undefined for anything else. */
export function hexBytes(text: string, length: number): Uint8Array<ArrayBuffer> | undefined {
  if (text.length !== length * 2 || !/^[0-9a-fA-F]*$/.test(text)) return undefined;
  const bytes = new Uint8Array(length);
  for (let at = 0; at < length; at++) bytes[at] = Number.parseInt(text.slice(at * 2, at * 2 + 2), 16);
  return bytes;
}

/** The application's public key (64 hex digits, as Discord's portal shows it) as a key that verifies. */
export function discordPublicKey(hex: string): Promise<CryptoKey> {
  const raw = hexBytes(hex, KEY_BYTES);
  if (!raw) throw new Error('DISCORD_PUBLIC_KEY must be 64 hex digits');
  return crypto.subtle.importKey('raw', raw, { name: 'Ed25519' }, false, ['verify']);
}

/** The signature's bytes if the header holds one (128 hex digits); undefined for a malformed one. */
export const signatureBytes = (header: string): Uint8Array<ArrayBuffer> | undefined =>
  hexBytes(header, SIGNATURE_BYTES);

const encoder = new TextEncoder();

/** Whether `signature` is the key's over the timestamp followed by the body. */
export function signedBy(
  key: CryptoKey,
  signature: Uint8Array<ArrayBuffer>,
  timestamp: string,
  body: Uint8Array,
): Promise<boolean> {
  const stamp = encoder.encode(timestamp);
  const message = new Uint8Array(stamp.length + body.length);
  message.set(stamp);
  message.set(body, stamp.length);
  return crypto.subtle.verify({ name: 'Ed25519' }, key, signature, message);
}
