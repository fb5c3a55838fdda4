// Debian's chromium driven by playwright-core, with the flags a closed network needs and a
// fresh profile per run. Missing browser: the suites skip locally and fail in CI.
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { temporaryFolder } from './temporary-folders.ts';

/** Debian's chromium; CHROMIUM_PATH points elsewhere (or nowhere, to try the skip). */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const screenshotDir = join(import.meta.dirname, '../../test-output/screenshots');

/** True when the browser tests must be skipped (no chromium and not required). */
export function skipBrowserTests(): boolean {
  if (existsSync(CHROMIUM_PATH)) return false;
  if (process.env.REQUIRE_BROWSER === '1') {
    throw new Error(`REQUIRE_BROWSER=1 but ${CHROMIUM_PATH} is missing: install it with apt-get install chromium`);
  }
  console.warn(
    `Skipping the wiki browser tests: ${CHROMIUM_PATH} is missing (apt-get install chromium). ` +
      'In CI, REQUIRE_BROWSER=1 makes this a failure.',
  );
  return true;
}

export interface Browser {
  context: BrowserContext;
  close: () => Promise<void>;
}

/** The flags a closed network needs, headless (bench/lighthouse.ts runs Chromium with them too). */
export const CHROMIUM_FLAGS: readonly string[] = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export async function launchBrowser(): Promise<Browser> {
  const profile = temporaryFolder('wiki-chromium-');
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    args: [...CHROMIUM_FLAGS],
    viewport: { width: 1280, height: 900 },
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
