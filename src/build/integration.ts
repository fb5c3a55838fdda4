// The Astro integration that completes a build: after Astro has written the wiki, it adds
// to the same output folder the prebuilt API envelopes and their manifest, the JSON Schemas,
// the OpenAPI document, the offline bundles and the Pagefind index of the record pages.
import type { AstroIntegration } from 'astro';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { emitApi } from './api.ts';
import { deployProblems, filesBelow } from './deploy-limits.ts';
import { emitSchemasAndDownloads } from './bundles.ts';
import { loadContent } from './content.ts';
import { writeSearchIndex } from './search-index.ts';
import { MANIFEST_FILE } from '../contract/paths.ts';

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
        const content = loadContent(join(projectDir, 'content'));
        const manifest = await emitApi(content, outDir);
        logger.info(
          `API: ${Object.keys(manifest.files).length} files, each with br and gzip variants, data version ${manifest.version}`,
        );
        logger.info(await emitSchemasAndDownloads(content, outDir));
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
