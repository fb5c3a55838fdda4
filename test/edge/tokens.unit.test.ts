// API tokens (src/edge/tokens.ts, token-verdict.ts): how a token is presented, configured and checked.
import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, test } from 'vitest';
import { tokenVerdicts } from '../../src/edge/token-verdict.ts';
import {
  configuredTokens,
  type Digest,
  digestsEqual,
  isConfiguredToken,
  presentedToken,
  sha256,
  tokenDigests,
} from '../../src/edge/tokens.ts';
import { EnvironmentError } from '../../src/schema/environment.ts';

const hex = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

describe('presentedToken', () => {
  /** Each Authorization value with the token it presents. */
  const presents = (cases: [authorization: string | null, token: string][]) => {
    for (const [authorization, token] of cases)
      expect({ authorization, token: presentedToken(authorization) }).toEqual({ authorization, token });
  };

  test('"Bearer" counts only at the start: elsewhere it is part of the token', () => {
    presents([
      ['Token bearer abc', 'Token bearer abc'],
      ['xbearer abc', 'xbearer abc'],
    ]);
  });

  test('no header or an empty one: the empty token', () => {
    presents([
      [null, ''],
      ['', ''],
      ['   ', ''],
    ]);
  });

  test('a bare token is the token, without surrounding white space', () => {
    presents([
      ['abc', 'abc'],
      ['  abc\t', 'abc'],
    ]);
  });

  test('Bearer <token>, the scheme in any letter case and followed by any white space', () => {
    presents(
      ['Bearer abc', 'bearer abc', 'BEARER abc', 'bEaReR abc', 'Bearer    abc  ', 'Bearer\tabc', ' Bearer abc'].map(
        (value) => [value, 'abc'],
      ),
    );
  });

  test('Bearer with no token is the empty token', () => {
    presents([
      ['Bearer', ''],
      ['bearer   ', ''],
    ]);
  });

  test('a word that only starts with Bearer is a bare token', () => {
    presents([['Bearerabc', 'Bearerabc']]);
  });

  test('another scheme is not stripped: the whole value is presented (and will not match)', () => {
    presents([['Basic abc', 'Basic abc']]);
  });
});

describe('tokenDigests', () => {
  test('no settings: no digests', async () => {
    expect(await tokenDigests({})).toEqual([]);
    expect(await tokenDigests({ API_TOKENS: '', API_TOKEN_SHA256: ' , ' })).toEqual([]);
  });

  test('API_TOKENS: the digest of each comma-separated token, trimmed, empty entries skipped', async () => {
    expect(
      (await tokenDigests({ API_TOKENS: ' one, two ,,' })).map((digest) => Buffer.from(digest).toString('hex')),
    ).toEqual([hex('one'), hex('two')]);
  });

  test('API_TOKEN_SHA256: each comma-separated digest as it is', async () => {
    expect(
      (await tokenDigests({ API_TOKEN_SHA256: `${hex('a')}, ${hex('b')}` })).map((digest) =>
        Buffer.from(digest).toString('hex'),
      ),
    ).toEqual([hex('a'), hex('b')]);
  });

  test('a malformed digest is an error naming its entry, not skipped', async () => {
    for (const bad of [hex('a').toUpperCase(), hex('a').slice(1), `${hex('a')}0`, 'g'.repeat(64), 'not-a-digest']) {
      const configure = () => tokenDigests({ API_TOKEN_SHA256: `${hex('ok')},${bad}` });
      await expect(configure()).rejects.toThrow(EnvironmentError);
      await expect(configure()).rejects.toThrow(/API_TOKEN_SHA256 entry 2 is not 64 lowercase hex digits/);
    }
    await expect(tokenDigests({ API_TOKEN_SHA256: 'bad' })).rejects.toThrow(
      expect.objectContaining({ name: 'EnvironmentError' }),
    );
  });

  test('the error does not repeat the configured value', async () => {
    const bad = hex('secret').toUpperCase();
    let message = '';
    try {
      await tokenDigests({ API_TOKEN_SHA256: bad });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/entry 1/);
    expect(message).not.toContain(bad);
  });
});

describe('configuredTokens', () => {
  test("each token's name: the one configured (name:token), else the first 8 hex digits of its digest", async () => {
    const configured = await configuredTokens({
      API_TOKENS: 'plain,reader:named',
      API_TOKEN_SHA256: `${hex('hashed')},ops:${hex('hashed-named')}`,
    });
    expect(configured.map(({ name }) => name)).toEqual([
      hex('plain').slice(0, 8),
      'reader',
      hex('hashed').slice(0, 8),
      'ops',
    ]);
  });
});

describe('tokenVerdicts', () => {
  test('verify: no header or an empty token is missing, a configured token passes, else invalid', async () => {
    const digests = await tokenDigests({ API_TOKENS: 'plain' });
    const verdicts = tokenVerdicts(digests, ['reader']);
    const cases: (string | null)[] = [
      null,
      '',
      'Bearer',
      'Bearer plain',
      'bearer  plain',
      'plain',
      'Bearer wrong',
      'Bearer plain',
    ];
    const verified = [];
    for (const authorization of cases) verified.push(await verdicts.verify(authorization));
    const passed = { key: hex('plain'), name: 'reader' };
    expect(verified).toEqual(['missing', 'missing', 'missing', passed, passed, passed, 'invalid', passed]);
  });
});

describe('isConfiguredToken', () => {
  let digests: Digest[];
  beforeAll(async () => {
    digests = await tokenDigests({ API_TOKENS: 'plain', API_TOKEN_SHA256: hex('hashed') });
  });

  test('a token configured in plaintext or by its digest is configured', async () => {
    expect(await isConfiguredToken('plain', digests)).toBe(true);
    expect(await isConfiguredToken('hashed', digests)).toBe(true);
  });

  test('any other token is not, nor a configured digest presented as a token', async () => {
    for (const token of ['', 'Plain', 'plain ', 'plainx', hex('hashed'), hex('plain')]) {
      expect({ token, configured: await isConfiguredToken(token, digests) }).toEqual({ token, configured: false });
    }
  });

  test('with no digests configured, no token is', async () => {
    expect(await isConfiguredToken('plain', [])).toBe(false);
  });

  test('tokens are compared as UTF-8', async () => {
    expect(await isConfiguredToken('tökén', await tokenDigests({ API_TOKEN_SHA256: hex('tökén') }))).toBe(true);
  });
});

/** `digest` with the byte at `index` changed: equal to it everywhere else. */
function differingAt(digest: Uint8Array, index: number): Uint8Array {
  const changed = Uint8Array.from(digest);
  changed[index] = (changed[index] ?? 0) ^ 0x01;
  return changed;
}

describe('digestsEqual', () => {
  test('equal bytes are equal; a different byte or length is not', async () => {
    expect(digestsEqual(await sha256('a'), await sha256('a'))).toBe(true);
    expect(digestsEqual(await sha256('a'), await sha256('b'))).toBe(false);
    expect(digestsEqual(await sha256('a'), (await sha256('a')).subarray(0, 31))).toBe(false);
  });

  test('a digest is not equal to a longer or shorter one that it begins or ends', async () => {
    expect(digestsEqual((await sha256('a')).subarray(0, 31), await sha256('a'))).toBe(false);
    expect(digestsEqual(new Uint8Array(31), new Uint8Array(32))).toBe(false);
    expect(digestsEqual(new Uint8Array(32), new Uint8Array(31))).toBe(false);
  });

  test('every byte counts: digests that differ only at byte 0, 15 or 31 are not equal', async () => {
    for (const index of [0, 15, 31]) {
      expect({ index, equal: digestsEqual(await sha256('a'), differingAt(await sha256('a'), index)) }).toEqual({
        index,
        equal: false,
      });
    }
  });
});

describe("isConfiguredToken against a digest that differs from the token's only in its last byte", () => {
  test('bytes 0 to 30 equal, byte 31 different: not configured', async () => {
    const nearMiss = Buffer.from(differingAt(await sha256('presented'), 31)).toString('hex');
    expect(nearMiss.slice(0, 62)).toBe(hex('presented').slice(0, 62));
    expect(await isConfiguredToken('presented', await tokenDigests({ API_TOKEN_SHA256: nearMiss }))).toBe(false);
    expect(await isConfiguredToken('presented', await tokenDigests({ API_TOKEN_SHA256: hex('presented') }))).toBe(true);
  });
});
