// The whole build as a library call: validate the content, let Astro build the wiki (the
// integration adds the API, the search index and the bundles) into a staging folder, then
// swap it in as dist/. `npm run build` (cli.ts) and `npm start` call it.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'astro';
import { siteConfig } from './astro-config.ts';
import { replaceAtomically } from './atomic.ts';
import { type BuildDataLoader, loadBuildData } from './build-data.ts';
import { contentDirOf } from './releases.ts';

export const projectDir = fileURLToPath(new URL('../../', import.meta.url));

/** `load`: how the build reads its data, once (a test passes its own). */
export async function buildSite(
  outDir = join(projectDir, 'dist'),
  load: BuildDataLoader = loadBuildData,
): Promise<void> {
  process.env.ASTRO_TELEMETRY_DISABLED = '1';
  // Validate first: bad content or a tampered release fails here with our messages, before
  // Astro starts. The integration hands this one load to every later part of the build.
  const data = load(contentDirOf(projectDir));
  await replaceAtomically(outDir, async (staging) => {
    await build({
      ...siteConfig({ data }),
      configFile: false,
      root: projectDir,
      outDir: staging,
      logLevel: process.env.CI ? 'warn' : 'info',
    });
  });
}
