// The settings of a serving process (src/server/settings.ts, rules in src/schema/environment.ts):
// each variable's default, its valid and invalid forms, and the one message a bad value gets.
import { join } from 'node:path';
import { describe, expect, test, vi } from 'vitest';
import { projectDir } from '../../src/cli/project-dir.ts';
import { EnvironmentError } from '../../src/schema/environment.ts';
import { printBanner, settingsFromEnvironment, workerDevVariables } from '../../src/server/settings.ts';

const digest = 'ab'.repeat(32);
/** A token is configured, so none is made up and the settings compare exactly. */
const base = { API_TOKENS: 'token' };
const settings = (env: Record<string, string>) => settingsFromEnvironment({ ...base, ...env });
const refused = (env: Record<string, string>): string => {
  try {
    settings(env);
  } catch (error) {
    expect(error).toBeInstanceOf(EnvironmentError);
    return (error as Error).message;
  }
  throw new Error(`${JSON.stringify(env)} was accepted`);
};

test('with nothing set, a process serves dist/ on 127.0.0.1:4321 in one process', () => {
  expect(settings({})).toEqual({
    port: 4321,
    host: '127.0.0.1',
    processes: 1,
    distDir: join(projectDir, 'dist'),
    tokens: ['token'],
    tokenSha256: [],
    rateLimit: undefined,
    accessLog: true,
    trustProxy: undefined,
    trustProxyHeader: 'x-forwarded-for',
  });
});

test('an empty variable counts as unset', () => {
  expect(settings({ PORT: '', HOST: '', WORKERS: '', DIST_DIR: '' })).toEqual(settings({}));
});

describe('PORT', () => {
  test('a whole number from 0 to 65535, spaces around it ignored', () => {
    expect([settings({ PORT: '0' }).port, settings({ PORT: '65535' }).port, settings({ PORT: ' 8080 ' }).port]).toEqual(
      [0, 65535, 8080],
    );
  });

  test('anything else is refused, naming the variable and the value', () => {
    expect(refused({ PORT: 'abc' })).toBe('PORT must be a whole number from 0 to 65535, got "abc"');
    for (const bad of ['65536', '-1', '80.5', '1e3', '0x50', '80 81'])
      expect(refused({ PORT: bad })).toBe(`PORT must be a whole number from 0 to 65535, got ${JSON.stringify(bad)}`);
  });

  test('npm run worker defaults to 8787 and checks PORT by the same rule', () => {
    expect(settingsFromEnvironment(base, workerDevVariables).port).toBe(8787);
    expect(() => settingsFromEnvironment({ ...base, PORT: 'abc' }, workerDevVariables)).toThrow(
      'PORT must be a whole number from 0 to 65535, got "abc"',
    );
  });
});

describe('BODIES', () => {
  test('npm run worker keeps the API in the static assets unless BODIES=r2', () => {
    expect(settingsFromEnvironment(base, workerDevVariables).bodies).toBe('assets');
    expect(settingsFromEnvironment({ ...base, BODIES: 'R2' }, workerDevVariables).bodies).toBe('r2');
  });

  test('another place is refused, naming the variable', () => {
    expect(() => settingsFromEnvironment({ ...base, BODIES: 's3' }, workerDevVariables)).toThrow(
      'BODIES must be assets or r2, got "s3"',
    );
  });

  test("R2_BUCKET names the R2 mode's bucket by Cloudflare's rule for a bucket's name", () => {
    expect(settingsFromEnvironment({ ...base, R2_BUCKET: 'farm-api-2' }, workerDevVariables).bucket).toBe('farm-api-2');
    expect(() => settingsFromEnvironment({ ...base, R2_BUCKET: 'Farm_API' }, workerDevVariables)).toThrow(
      'R2_BUCKET must be 3 to 63 lowercase letters, digits and hyphens, got "Farm_API"',
    );
  });

  test('R2_DOWNLOADS_ABOVE: a bundle past the largest static asset file (25 MiB) goes to R2 unless set lower', () => {
    const above = (value?: string) =>
      settingsFromEnvironment({ ...base, R2_DOWNLOADS_ABOVE: value }, workerDevVariables).downloadsAbove;
    expect(above()).toBe(25 * 1024 * 1024);
    expect(above('0')).toBe(0);
    expect(above('1048576')).toBe(1024 * 1024);
    expect(above('512KiB')).toBe(512 * 1024);
    expect(above(' 3 mib ')).toBe(3 * 1024 * 1024);
    expect(above('25MiB')).toBe(25 * 1024 * 1024);
  });

  test('R2_DOWNLOADS_ABOVE that is no size, or more than 25 MiB, is refused naming the variable and the value', () => {
    for (const value of ['lots', '1.5MiB', '-1', '10MB', '26MiB', '1GiB'])
      expect(() => settingsFromEnvironment({ ...base, R2_DOWNLOADS_ABOVE: value }, workerDevVariables)).toThrow(
        'R2_DOWNLOADS_ABOVE must be a size in bytes or with a unit (B, KiB, MiB, GiB), such as 25MiB or 0, ' +
          `of at most 25MiB (the largest static asset file), got "${value}"`,
      );
  });
});

describe('HOST', () => {
  test('a host name or an address', () => {
    for (const host of ['0.0.0.0', '::1', 'localhost', 'farm.example'])
      expect(settings({ HOST: host }).host).toBe(host);
  });

  test('a URL or a value with spaces is refused', () => {
    expect(refused({ HOST: 'http://localhost' })).toBe(
      'HOST must be a host name or an IP address (no spaces, scheme or path), got "http://localhost"',
    );
    expect(refused({ HOST: 'local host' })).toMatch(/^HOST must be a host name/);
  });
});

describe('WORKERS', () => {
  test('a whole number from 1 to 64', () => {
    expect([settings({ WORKERS: '1' }).processes, settings({ WORKERS: '64' }).processes]).toEqual([1, 64]);
  });

  test('0, 65 or a word is refused', () => {
    for (const bad of ['0', '65', 'two'])
      expect(refused({ WORKERS: bad })).toBe(`WORKERS must be a whole number from 1 to 64, got ${JSON.stringify(bad)}`);
  });
});

test('DIST_DIR: the build folder served, as given', () => {
  expect(settings({ DIST_DIR: '/srv/treefarm dist' }).distDir).toBe('/srv/treefarm dist');
});

describe('API_TOKENS', () => {
  test('comma-separated tokens, trimmed, empty entries skipped; none is made up', () => {
    expect(settingsFromEnvironment({ API_TOKENS: ' a, b ,' })).toMatchObject({ tokens: ['a', 'b'], tokenSha256: [] });
    expect(settingsFromEnvironment({ API_TOKENS: 'a' }).madeUpToken).toBeUndefined();
  });

  test('a token with a control character is refused, naming its entry but not its value', () => {
    const message = refused({ API_TOKENS: 'fine,sec\tret' });
    expect(message).toBe('API_TOKENS entry 2 holds a control character');
    expect(message).not.toContain('sec');
  });
});

describe('API_TOKEN_SHA256', () => {
  test('digests alone are enough: no token is made up', () => {
    expect(settingsFromEnvironment({ API_TOKEN_SHA256: digest })).toEqual(
      expect.objectContaining({ tokens: [], tokenSha256: [digest] }),
    );
    expect(settingsFromEnvironment({ API_TOKEN_SHA256: digest }).madeUpToken).toBeUndefined();
  });

  test('an entry that is not 64 lowercase hex digits is refused, naming its entry but not its value', () => {
    const bad = digest.toUpperCase();
    const message = refused({ API_TOKEN_SHA256: `${digest},${bad}` });
    expect(message).toBe('API_TOKEN_SHA256 entry 2 is not 64 lowercase hex digits (a SHA-256 digest)');
    expect(message).not.toContain(bad);
  });
});

describe('named tokens', () => {
  test('name:token and name:digest entries are accepted as written (the edge splits them)', () => {
    expect(settings({ API_TOKENS: 'bot-1:secret', API_TOKEN_SHA256: `fan_site.v2:${digest}` })).toMatchObject({
      tokens: ['bot-1:secret'],
      tokenSha256: [`fan_site.v2:${digest}`],
    });
  });

  test('a name that is not letters, digits, _ . - is refused, naming its entry but not its value', () => {
    const message = refused({ API_TOKENS: 'ok,my bot:secret' });
    expect(message).toBe(
      'API_TOKENS entry 2 has a name that is not letters, digits, _ . and - (at most 64) ' +
        '(an entry is token or name:token)',
    );
    expect(message).not.toContain('secret');
    expect(refused({ API_TOKEN_SHA256: `a/b:${digest}` })).toMatch(/^API_TOKEN_SHA256 entry 1 has a name that is not/);
  });

  test('a name with no token is refused', () => {
    expect(refused({ API_TOKENS: 'bot:' })).toBe('API_TOKENS entry 1 has a name but no token');
  });
});

describe('API_RATE_LIMIT', () => {
  test('<requests>/<seconds>s, seconds 10 or 60', () => {
    expect(settings({ API_RATE_LIMIT: '100/60s' }).rateLimit).toEqual({ requests: 100, seconds: 60 });
    expect(settings({ API_RATE_LIMIT: '5/10s' }).rateLimit).toEqual({ requests: 5, seconds: 10 });
  });

  test('another window or form is refused, with the value', () => {
    for (const bad of ['100/30s', '100', '0/60s', '100/60'])
      expect(refused({ API_RATE_LIMIT: bad })).toBe(
        'API_RATE_LIMIT must be <requests>/<seconds>s, requests a whole number from 1 to 999999999 ' +
          `and seconds 10 or 60 (such as 100/60s), got ${JSON.stringify(bad)}`,
      );
  });
});

describe('ACCESS_LOG', () => {
  test('on unless off', () => {
    expect(settings({}).accessLog).toBe(true);
    expect(settings({ ACCESS_LOG: 'off' }).accessLog).toBe(false);
    expect(settings({ ACCESS_LOG: 'OFF' }).accessLog).toBe(false);
    expect(settings({ ACCESS_LOG: 'on' }).accessLog).toBe(true);
  });

  test('another word is refused', () => {
    expect(refused({ ACCESS_LOG: 'verbose' })).toBe('ACCESS_LOG must be on or off, got "verbose"');
  });
});

describe('TRUST_PROXY', () => {
  test('off unless set: the client is the socket; off says so too', () => {
    expect(settings({}).trustProxy).toBeUndefined();
    expect(settings({ TRUST_PROXY: 'off' }).trustProxy).toBeUndefined();
  });

  test('a number of hops, or addresses, CIDR ranges, loopback and private', () => {
    expect(settings({ TRUST_PROXY: '2' }).trustProxy).toEqual({ hops: 2 });
    expect(settings({ TRUST_PROXY: 'loopback, 10.0.0.0/8' }).trustProxy).toMatchObject({
      ranges: expect.any(Array),
    });
  });

  test('a bad value is refused, naming the variable, the entry and the value', () => {
    expect(refused({ TRUST_PROXY: '127.0.0.1, nginx' })).toBe(
      'TRUST_PROXY entry 2 is not an IP address, a CIDR range (such as 10.0.0.0/8) or one of loopback, private ' +
        '(or give a number of hops, or every-peer, alone), got "127.0.0.1, nginx"',
    );
    expect(refused({ TRUST_PROXY: '0' })).toBe('TRUST_PROXY must be a number of hops from 1 to 32, got "0"');
  });

  test('a range, or ranges together, covering every address of a family are refused at start, saying why', () => {
    for (const value of ['0.0.0.0/0', '::/0', 'loopback, ::ffff:0:0/96'])
      expect(refused({ TRUST_PROXY: value })).toMatch(
        /^TRUST_PROXY entry \d \(.*\) covers every (address|IPv4 address), so every client could name its own address/,
      );
    expect(refused({ TRUST_PROXY: '0.0.0.0/1,128.0.0.0/1' })).toMatch(
      /^TRUST_PROXY entries 1 and 2 \(0\.0\.0\.0\/1, 128\.0\.0\.0\/1\) together cover every IPv4 address, so every /,
    );
  });

  test('every-peer trusts every peer on purpose, and the start-up banner says so', () => {
    const everyPeer = settings({ TRUST_PROXY: 'every-peer' });
    expect(everyPeer.trustProxy).toMatchObject({ everyPeer: true });
    const printed = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    try {
      printBanner(everyPeer, 'http://127.0.0.1:4321', { version: 'v', counts: {} as never });
      expect(printed.mock.calls.flat().join('\n')).toContain(
        'TRUST_PROXY=every-peer: every peer is trusted; only proxies must be able to reach this server.',
      );
    } finally {
      printed.mockRestore();
    }
  });

  test('TRUST_PROXY_HEADER: X-Forwarded-For unless Forwarded; another header is refused', () => {
    expect(settings({ TRUST_PROXY_HEADER: 'Forwarded' }).trustProxyHeader).toBe('forwarded');
    expect(settings({ TRUST_PROXY_HEADER: 'X-Forwarded-For' }).trustProxyHeader).toBe('x-forwarded-for');
    expect(refused({ TRUST_PROXY_HEADER: 'X-Real-IP' })).toBe(
      'TRUST_PROXY_HEADER must be x-forwarded-for or forwarded, got "X-Real-IP"',
    );
  });
});

test('with neither token variable, a run makes up one random token and serves it', () => {
  const first = settingsFromEnvironment({});
  const second = settingsFromEnvironment({ API_TOKENS: ' , ' });
  expect(first.madeUpToken).toMatch(/^[A-Za-z0-9_-]{32}$/);
  expect(first.tokens).toEqual([first.madeUpToken]);
  expect(second.madeUpToken).not.toBe(first.madeUpToken);
});

test('every bad variable is named in the one error, a line each', () => {
  expect(refused({ PORT: 'abc', WORKERS: '0' })).toBe(
    'PORT must be a whole number from 0 to 65535, got "abc"\nWORKERS must be a whole number from 1 to 64, got "0"',
  );
});
