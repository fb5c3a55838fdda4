// The Astro integration that completes a build: after Astro has written the wiki, it adds
// to the same output folder the prebuilt API envelopes and their manifest, the JSON Schemas,
// the OpenAPI document, the offline bundles and the Pagefind index of the record pages.
// The content and the bundles are the build session's (session.ts): read and made once.
import { fileURLToPath } from 'node:url';
import type { AstroIntegration } from 'astro';
import { emitApi } from './api.ts';
import { createDownloads, emitSchemasAndDownloads } from './bundles.ts';
import { deployProblems, filesBelow } from './deploy-limits.ts';
import { writeSearchIndex } from './search-index.ts';
import { buildContent, buildDownloads } from './session.ts';
import { MANIFEST_FILE } from '../contract/paths.ts';

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
        const manifest = await emitApi(content, outDir);
        logger.info(
          `API: ${Object.keys(manifest.files).length} files, each with br and gzip variants, data version ${manifest.version}`,
        );
        const downloads = await buildDownloads(contentDir, createDownloads);
        logger.info(emitSchemasAndDownloads(content, downloads, outDir));
        logger.info(await writeSearchIndex(outDir));
        // Said now, not by a failed deploy (docs/deploy.md). WORKERS_PLAN=paid checks the paid plan.
        const plan = process.env.WORKERS_PLAN === 'paid' ? 'paid' : 'free';
        const files = filesBelow(outDir);
        const problems = deployProblems(files, files.find((file) => file.path === MANIFEST_FILE)?.size ?? 0, plan);
        if (problems.length > 0)
          logger.warn(
            `This build does not fit a Cloudflare Workers deployment (${plan} plan; see docs/deploy.md):\n  ${problems.join('\n  ')}`,
          );
      },
    },
  };
}
