// The build's settings (src/build/settings.ts): SITE_ORIGIN is an http(s) origin and nothing
// more, kept as its origin; anything else stops the build with the variable and the value named.
import { describe, expect, test } from 'vitest';
import { buildSettings } from '../../src/build/settings.ts';
import { EnvironmentError } from '../../src/schema/environment.ts';

describe('SITE_ORIGIN', () => {
  test('unset or empty: no origin, so the build writes no absolute URL', () => {
    expect(buildSettings({}).siteOrigin).toBeUndefined();
    expect(buildSettings({ SITE_ORIGIN: '' }).siteOrigin).toBeUndefined();
  });

  test.for([
    ['https://wiki.example.org', 'https://wiki.example.org'],
    ['https://wiki.example.org/', 'https://wiki.example.org'],
    [' HTTPS://Wiki.Example.org:443 ', 'https://wiki.example.org'],
    ['http://127.0.0.1:4321', 'http://127.0.0.1:4321'],
  ])('%s is the origin %s', ([value, origin]) => {
    expect(buildSettings({ SITE_ORIGIN: value }).siteOrigin).toBe(origin);
  });

  test.for([
    'wiki.example.org',
    'ftp://wiki.example.org',
    'https://wiki.example.org/wiki/',
    'https://wiki.example.org/?lang=en',
    'https://wiki.example.org/#top',
    'https://user:secret@wiki.example.org',
    'https://',
  ])('%s is refused, naming the variable and the value', (value) => {
    expect(() => buildSettings({ SITE_ORIGIN: value })).toThrow(EnvironmentError);
    expect(() => buildSettings({ SITE_ORIGIN: value })).toThrow(
      `SITE_ORIGIN must be an origin such as https://wiki.example.org (http or https, no path, query or user), ` +
        `got ${JSON.stringify(value)}`,
    );
  });
});
