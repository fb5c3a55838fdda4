// The Astro integration that completes a build: after Astro has written the wiki, it adds
// to the same output folder the prebuilt API envelopes (current and of every data release)
// and their manifest, the JSON Schemas, the OpenAPI document, the offline bundles and the
// Pagefind index of the record pages.
import type { AstroIntegration } from 'astro';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { emitApi } from './api.ts';
import { emitSchemasAndDownloads } from './bundles.ts';
import { loadContent } from './content.ts';
import { dataDirOf, loadReleases } from './releases.ts';
import { writeSearchIndex } from './search-index.ts';

export default function treefarmData(): AstroIntegration {
  let projectDir = '';
  return {
    name: 'treefarm-data',
    hooks: {
      'astro:config:done': ({ config }) => {
        projectDir = fileURLToPath(config.root);
      },
      'astro:build:done': async ({ dir, logger }) => {
        const outDir = fileURLToPath(dir);
        const dataDir = dataDirOf(projectDir);
        const content = loadContent(join(dataDir, 'content'));
        const releases = loadReleases(dataDir);
        const manifest = emitApi(content, outDir, releases);
        logger.info(
          `API: ${Object.keys(manifest.files).length} envelopes (${releases.length} releases), data version ${manifest.version}`,
        );
        logger.info(await emitSchemasAndDownloads(content, outDir, releases));
        logger.info(await writeSearchIndex(outDir));
      },
    },
  };
}
