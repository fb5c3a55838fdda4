// The Astro integration that completes a build: after Astro has written the wiki, it adds
// to the same output folder the prebuilt API envelopes and their manifest, the JSON Schemas,
// the OpenAPI document, the offline bundles and the Pagefind index of the record pages.
// The content and the bundles are the build session's (session.ts): read and made once.
import { fileURLToPath } from 'node:url';
import type { AstroIntegration } from 'astro';
import { emitApi } from './api.ts';
import { assetFilesBelow, workerAssetWarnings } from './deploy-limits.ts';
import { createDownloads, emitSchemasAndDownloads } from './bundles.ts';
import { writeSearchIndex } from './search-index.ts';
import { buildContent, buildDownloads } from './session.ts';

export default function treefarmData(): AstroIntegration {
  let contentDir = '';
  return {
    name: 'treefarm-data',
    hooks: {
      'astro:config:done': ({ config }) => {
        contentDir = fileURLToPath(new URL('content/', config.root));
      },
      'astro:build:done': async ({ dir, logger }) => {
        const outDir = fileURLToPath(dir);
        const content = buildContent(contentDir);
        const manifest = emitApi(content, outDir);
        logger.info(`API: ${Object.keys(manifest.files).length} envelopes, data version ${manifest.version}`);
        const downloads = await buildDownloads(contentDir, createDownloads);
        logger.info(emitSchemasAndDownloads(content, downloads, outDir));
        logger.info(await writeSearchIndex(outDir));
        // Last, so every file the build writes is counted.
        for (const warning of workerAssetWarnings(assetFilesBelow(outDir)))
          logger.warn(`Deploying this build as a Cloudflare Worker: ${warning} (npm start has no such limit.)`);
      },
    },
  };
}
