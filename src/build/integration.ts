// The Astro integration that completes a build: after Astro has written the wiki, it adds
// to the same output folder the prebuilt API (each distinct body once, and the routing index
// of the current data and of every data release) and its manifest, the JSON Schemas, the
// OpenAPI document, the offline bundles and the Pagefind index of the record pages. The
// content, the releases and the bundles are the build session's (session.ts): read and made once.
import { fileURLToPath } from 'node:url';
import type { AstroIntegration } from 'astro';
import { emitApi } from './emit.ts';
import { assetFilesBelow, assetsIgnoreOf, deploySummary, workerAssetWarnings } from './deploy-limits.ts';
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
        const api = await emitApi(content, outDir, releases);
        logger.info(
          `API: ${api.routes} routes (${releases.length} releases) answered by ${api.bodies} distinct bodies, ` +
            `each stored once with its br and gzip variants, in ${api.indexFiles} index files, ` +
            `data version ${api.manifest.version}`,
        );
        const downloads = await buildDownloads(contentDir, createDownloads);
        logger.info(emitSchemasAndDownloads(content, downloads, outDir));
        logger.info(await writeSearchIndex(outDir));
        // Last, so every file the build writes is counted.
        logger.info(deploySummary(outDir));
        for (const warning of workerAssetWarnings(assetFilesBelow(outDir), assetsIgnoreOf(outDir)))
          logger.warn(`Deploying this build as a Cloudflare Worker: ${warning} (npm start has no such limit.)`);
      },
    },
  };
}
