// The Astro integration that completes a build: after Astro has written the wiki, it adds
// to the same output folder the prebuilt API envelopes (current and of every data release)
// and their manifest, the JSON Schemas, the OpenAPI document, the offline bundles and the
// Pagefind index of the record pages. The content, the releases and the bundles are the build
// session's (session.ts): read and made once.
import { fileURLToPath } from 'node:url';
import type { AstroIntegration } from 'astro';
import { emitApi } from './api.ts';
import { assetFilesBelow, workerAssetWarnings } from './deploy-limits.ts';
import { createDownloads, emitSchemasAndDownloads } from './bundles.ts';
import { contentDirOf } from './releases.ts';
import { writeSearchIndex } from './search-index.ts';
import { buildContent, buildDownloads, buildReleases } from './session.ts';

export default function treefarmData(): AstroIntegration {
  let contentDir = '';
  return {
    name: 'treefarm-data',
    hooks: {
      'astro:config:done': ({ config }) => {
        contentDir = contentDirOf(config.root);
      },
      'astro:build:done': async ({ dir, logger }) => {
        const outDir = fileURLToPath(dir);
        const content = buildContent(contentDir);
        const releases = buildReleases(contentDir);
        const manifest = await emitApi(content, outDir, releases);
        logger.info(
          `API: ${Object.keys(manifest.files).length} files (${releases.length} releases), each with br and gzip ` +
            `variants, and ${Object.keys(manifest.index).length} suggestion index files, ` +
            `data version ${manifest.version}`,
        );
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
