// No configured token, nor its SHA-256 digest (hex or base64), ever leaves the process: not
// into a build made with the tokens in its environment (every file, and every file inside the
// offline bundles), nor into the server's output. Tokens are compared only as digests, every
// byte of every configured digest, whatever the presented token.
import { createHash } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { isConfiguredToken, sha256, tokenDigests, type Digest } from '../../src/edge/tokens.ts';
import { buildInChild } from '../support/child-build.ts';
import { filesBelow, tempDir } from '../support/builds.ts';
import { startServe, until } from '../support/serve-child.ts';

const PLAIN_TOKENS = ['secret-plain-token-4c1d8e', 'secret-plain-token-9b27fa'];
/** Configured only through its digest (API_TOKEN_SHA256). */
const DIGEST_TOKEN = 'secret-digest-token-e03b55';
/** Presented but never configured: a server must not write it out either. */
const WRONG_TOKEN = 'wrong-presented-token-71aa02';
const settings = {
  API_TOKENS: PLAIN_TOKENS.join(','),
  API_TOKEN_SHA256: createHash('sha256').update(DIGEST_TOKEN).digest('hex'),
};

/** Every form a token could leak in: itself and its digest in hex (either case), base64 and base64url. */
const secretForms = [...PLAIN_TOKENS, DIGEST_TOKEN, WRONG_TOKEN].flatMap((token) => {
  const digest = createHash('sha256').update(token, 'utf8').digest();
  return [
    token,
    digest.toString('hex'),
    digest.toString('hex').toUpperCase(),
    digest.toString('base64'),
    digest.toString('base64url'),
  ].map((form) => ({ token, form }));
});

/** The secret forms found in `bytes`, named by where they were found. */
function leaks(where: string, bytes: Uint8Array): string[] {
  const haystack = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return secretForms
    .filter(({ form }) => haystack.includes(form))
    .map(({ token, form }) => `${where}: ${form === token ? token : `a digest of ${token}`}`);
}

/** The bytes of a file and of every file inside it, when it is a .tar.gz or .zip bundle. */
function contentsOf(name: string, bytes: Buffer): { where: string; bytes: Uint8Array }[] {
  const contents: { where: string; bytes: Uint8Array }[] = [{ where: name, bytes }];
  // A tar holds its files' bytes as they are, so the unpacked tar is every file's bytes.
  if (name.endsWith('.tar.gz') || name.endsWith('.tgz'))
    contents.push({ where: `${name} (unpacked)`, bytes: gunzipSync(bytes) });
  if (name.endsWith('.zip')) {
    for (const [entry, entryBytes] of Object.entries(unzipSync(bytes)))
      contents.push({ where: `${name}!${entry}`, bytes: entryBytes });
  }
  return contents;
}

describe('a build made with tokens in its environment', () => {
  let outDir: string;
  let workDir: string;
  let buildOutput: string;
  beforeAll(async () => {
    workDir = tempDir('secrets');
    outDir = join(workDir, 'dist');
    buildOutput = await buildWithTokens(outDir);
  }, 180_000);
  afterAll(() => rmSync(workDir, { recursive: true, force: true }));

  test('prints no token or digest', () => {
    expect(leaks('build output', Buffer.from(buildOutput))).toEqual([]);
  });

  test('holds no token or digest in any file, nor in any file inside its bundles', () => {
    const files = filesBelow(outDir);
    const bundles = files.filter((file) => /\.(?:tar\.gz|tgz|zip)$/.test(file));
    const found = files.flatMap((file) =>
      contentsOf(file, readFileSync(join(outDir, file))).flatMap(({ where, bytes }) => leaks(where, bytes)),
    );
    expect(found).toEqual([]);
    console.log(
      `scanned ${files.length} files of a build, ` +
        `${bundles.length} of them bundles (${bundles.join(', ') || 'none yet'})`,
    );
  });
});

test('the server writes no token or digest to its output, whatever tokens its clients present', async () => {
  const server = await startServe({ tokens: PLAIN_TOKENS, tokenSha256: [settings.API_TOKEN_SHA256] });
  try {
    for (const authorization of [...PLAIN_TOKENS, DIGEST_TOKEN, WRONG_TOKEN]
      .flatMap((token) => [token, `Bearer ${token}`])
      .concat([''])) {
      const response = await fetch(`${server.url}/api/trees?search=1`, { headers: { Authorization: authorization } });
      await response.arrayBuffer();
    }
    server.child.kill('SIGHUP');
    await until(() => /Reloaded/.test(server.output()));
  } finally {
    expect(await server.stop('SIGTERM')).toBe(0);
  }
  expect(server.output()).toMatch(/3 API token\(s\) configured/);
  expect(leaks('server output', Buffer.from(server.output()))).toEqual([]);
});

test('isConfiguredToken hashes the token, compares every byte of every configured digest, no early exit', async () => {
  let bytesRead = 0;
  /** A configured digest that counts how many of its bytes are read. */
  const counted = (digest: Digest): Digest =>
    new Proxy(digest, {
      get(target, property) {
        if (typeof property === 'string' && /^\d+$/.test(property)) bytesRead++;
        return Reflect.get(target, property);
      },
    });
  const configured = (await tokenDigests(settings)).map(counted);
  expect(configured).toHaveLength(3);
  const presented: [token: string, configured: boolean][] = [
    [PLAIN_TOKENS[0] ?? '', true],
    [DIGEST_TOKEN, true],
    [WRONG_TOKEN, false],
    ['x', false],
    ['y'.repeat(10_000), false],
    [settings.API_TOKEN_SHA256, false], // a configured digest is not a token
  ];
  for (const [token, expected] of presented) {
    bytesRead = 0;
    expect({ token: token.slice(0, 20), configured: await isConfiguredToken(token, configured) }).toEqual({
      token: token.slice(0, 20),
      configured: expected,
    });
    expect(bytesRead).toBe(configured.length * (await sha256('')).length);
  }
});

/**
 * Runs `npm run build`'s buildSite into `outDir` in a child process whose environment holds the tokens;
 * resolves with its output.
 */
async function buildWithTokens(outDir: string): Promise<string> {
  const { status, output } = await buildInChild(outDir, settings);
  if (status !== 0) throw new Error(`the build exited with ${status}:\n${output}`);
  return output;
}
