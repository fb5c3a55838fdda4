// The whole build as a library call: validate the content, let Astro build the wiki (the
// integration adds the API, the search index and the bundles) into a staging folder, then
// swap it in as dist/. `npm run build` (cli.ts) and `npm start` call it.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'astro';
import { replaceAtomically } from './atomic.ts';
import { beginBuild, endBuild } from './session.ts';

export const projectDir = fileURLToPath(new URL('../../', import.meta.url));

export async function buildSite(outDir = join(projectDir, 'dist')): Promise<void> {
  process.env.ASTRO_TELEMETRY_DISABLED = '1';
  // Validate first: bad content fails here with our messages, before Astro starts. Every
  // later part of the build takes this one load from the session.
  beginBuild(join(projectDir, 'content'));
  try {
    await replaceAtomically(outDir, async (staging) => {
      await build({ root: projectDir, outDir: staging, logLevel: process.env.CI ? 'warn' : 'info' });
    });
  } finally {
    endBuild();
  }
}
