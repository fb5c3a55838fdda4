// `npm run build`: validate the content, let Astro build the wiki (the integration adds the
// API, the search index and the bundles) into a staging folder, then swap it in as dist/.
import { build } from 'astro';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { replaceAtomically } from './atomic.ts';
import { ContentError, loadContent } from './content.ts';

export const projectDir = fileURLToPath(new URL('../../', import.meta.url));

export async function buildSite(outDir = join(projectDir, 'dist')): Promise<void> {
  process.env.ASTRO_TELEMETRY_DISABLED = '1';
  // Validate first: bad content fails here with our messages, before Astro starts.
  loadContent(join(projectDir, 'content'));
  await replaceAtomically(outDir, async (staging) => {
    await build({ root: projectDir, outDir: staging, logLevel: process.env.CI ? 'warn' : 'info' });
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const started = performance.now();
  try {
    await buildSite();
    console.log(`Built dist/ in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  } catch (error) {
    console.error(error instanceof ContentError ? error.message : error);
    console.error('The build failed; dist/ was left as it was.');
    process.exit(1);
  }
}
