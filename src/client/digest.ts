// The archive's own SHA-256: what proves a bundle is the file the site published. The check
// against the manifest inside a bundle proves only that nothing was damaged since it was made:
// whoever changes a file can rewrite that manifest too, but not the digest the site publishes
// (in downloads/latest.json and on its Downloads page).
import { PUBLISHED_BUNDLES } from '../contract/bundle-layout.ts';
import { sha256Hex } from '../contract/sha256.ts';
import { BundleError, NetworkError, TreefarmError } from './errors.ts';

const SHA256_HEX = /^[0-9a-f]{64}$/;

/** `text` as a SHA-256 digest in lowercase, or undefined when it is not 64 hexadecimal digits (either case). */
export function asSha256(text: string): string | undefined {
  const digest = text.trim().toLowerCase();
  return SHA256_HEX.test(digest) ? digest : undefined;
}

/** What is wrong with a `text` that is no digest, naming `source`, where it came from. */
export const notASha256 = (text: string, source: string) =>
  `${source} must be a SHA-256 digest, 64 hexadecimal digits; got ${JSON.stringify(text)} (${text.length} characters).`;

/** `text` as a SHA-256 digest in lowercase; a TypeError naming `source` when it is none. */
export function sha256Digest(text: string, source: string): string {
  const digest = asSha256(text);
  if (digest === undefined) throw new TypeError(notASha256(text, source));
  return digest;
}

/**
 * The SHA-256 of an archive or of a file in it, as lowercase hex. Web Crypto copies the bytes it
 * hashes, which for a bundle's largest file is as much memory again: where Node's crypto is at
 * hand (process.getBuiltinModule, Node 20.16 and 22.3 on) it hashes them where they lie.
 */
export async function sha256Of(bytes: Uint8Array): Promise<string> {
  const nodeCrypto = globalThis.process?.getBuiltinModule?.('node:crypto');
  return nodeCrypto ? nodeCrypto.createHash('sha256').update(bytes).digest('hex') : sha256Hex(bytes);
}

/** Refuses an archive whose SHA-256 is not `expected` (a digest as sha256Digest gives it). */
export async function checkArchiveDigest(archive: Uint8Array, expected: string): Promise<void> {
  const actual = await sha256Of(archive);
  if (actual !== expected)
    throw new BundleError(
      `The archive is not the one published: its SHA-256 is ${actual}, expected ${expected}. ` +
        'It was changed, damaged, or is another version.',
    );
}

export interface PublishedOptions {
  /** The fetch to use (default: the global one). */
  fetch?: typeof fetch;
  signal?: AbortSignal;
}

/**
 * The SHA-256 the site at `site` publishes for the bundle named `name` (such as
 * treefarm-data-<version>.zip), read from its downloads/latest.json. Throws a NetworkError
 * when the site does not answer, a TreefarmError when it does not list that bundle.
 */
export async function publishedSha256(
  site: string | URL,
  name: string,
  options: PublishedOptions = {},
): Promise<string> {
  const base = new URL(site);
  if (!base.pathname.endsWith('/')) base.pathname += '/';
  const request = new Request(new URL(PUBLISHED_BUNDLES, base), options.signal ? { signal: options.signal } : {});
  let response: Response;
  try {
    response = await (options.fetch ?? fetch)(request);
  } catch (cause) {
    throw new NetworkError(`No answer from ${request.url}: ${(cause as Error).message}`, request, { cause });
  }
  const latest: unknown = response.ok ? await response.json().catch(() => undefined) : undefined;
  if (latest === undefined)
    throw new TreefarmError(`${request.url} answered ${response.status} with no list of bundles.`);
  const bundles = (latest as { bundles?: unknown }).bundles;
  const listed = Array.isArray(bundles) ? (bundles as { name?: unknown; sha256?: unknown }[]) : [];
  const bundle = listed.find((entry) => entry?.name === name);
  if (typeof bundle?.sha256 !== 'string') {
    const names = listed.flatMap((entry) => (typeof entry?.name === 'string' ? [entry.name] : []));
    throw new TreefarmError(
      `${request.url} lists no bundle named ${name} (it lists ${names.join(', ') || 'none'}): ` +
        'give its SHA-256 from where you downloaded it.',
    );
  }
  const digest = asSha256(bundle.sha256);
  if (digest === undefined)
    throw new TreefarmError(notASha256(bundle.sha256, `The sha256 ${request.url} gives ${name}`));
  return digest;
}
