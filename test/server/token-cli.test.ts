// `npm run token -- <name>` (src/server/token-cli.ts): a new random token and the entry that
// makes the server accept it under that name.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { configuredTokens, sha256 } from '../../src/edge/tokens.ts';
import { newToken } from '../../src/server/token-cli.ts';

const cli = fileURLToPath(new URL('../../src/server/token-cli.ts', import.meta.url));

describe('npm run token', () => {
  test('a new token is 32 random bytes in base64url, and its entry is name:<sha256 of it>', () => {
    const { token, entry } = newToken('fan-site.v2');
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(entry).toBe(`fan-site.v2:${createHash('sha256').update(token).digest('hex')}`);
    expect(newToken('bot').token).not.toBe(newToken('bot').token);
  });

  test('the entry makes the server accept the token under its name', async () => {
    const { token, entry } = newToken('bot_1');
    const [configured] = await configuredTokens({ API_TOKEN_SHA256: entry });
    expect(configured?.name).toBe('bot_1');
    expect(configured?.digest).toEqual(await sha256(token));
  });

  test('a bad or missing name is a clear error', () => {
    for (const bad of ['my bot', 'a:b', '', 'x'.repeat(65)])
      expect(() => newToken(bad)).toThrow(/^a token name is letters, digits, _ \. and - \(at most 64\), got /);
    expect(() => newToken(undefined)).toThrow('got none (usage: npm run token -- <name>)');
  });

  test('the CLI prints the token and the entry; a bad name exits 1 with the message', () => {
    const output = execFileSync(process.execPath, [cli, 'reader'], { encoding: 'utf8' });
    const token = /: ([A-Za-z0-9_-]{43})\n/.exec(output)?.[1] ?? '';
    expect(output).toContain(`reader:${createHash('sha256').update(token).digest('hex')}`);
    const refused = spawnSync(process.execPath, [cli, 'no good'], { encoding: 'utf8' });
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(/^Cannot make a token: a token name is/);
  });
});
