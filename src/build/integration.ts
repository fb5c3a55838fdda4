// The Astro integration that completes a build. It holds the build's data (build-data.ts:
// handed over by site.ts, or loaded here when `astro build` or `astro sync` runs alone),
// serves it to the content collections and the pages as virtual modules (wiki-data.ts), and
// after Astro has written the wiki, adds to the same output folder the prebuilt API (each
// distinct body once, and the routing index of the current data and of every data release)
// and its manifest, the JSON Schemas, the OpenAPI document, the offline bundles, the wiki's
// near-miss files and the Pagefind index of the record pages.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AstroIntegration, AstroIntegrationLogger } from 'astro';
import { stop as stopEsbuild } from 'esbuild';
import { BUILD_SETTINGS_FILE } from '../contract/build-files.ts';
import { type BuildData, loadBuildData } from './build-data.ts';
import { createDownloads, emitSchemasAndDownloads, latestOf } from './bundles.ts';
import type { NamedBytes } from './named-bytes.ts';
import { assetFilesBelow, assetsIgnoreOf, deploySummary, workerAssetWarnings } from './deploy-limits.ts';
import { emitApi } from './emit.ts';
import { writeNearFiles } from './near-files.ts';
import { contentDirOf } from './releases.ts';
import { writeSearchIndex } from './search-index.ts';
import { type NearShardsOf, nearShardsKeepingFirst } from './suggest-index.ts';
import { buildSettings, outputSettings } from './settings.ts';
import { collectionRecords, siteData, wikiDataPlugin } from './wiki-data.ts';

export interface TreefarmDataOptions {
  /** The build's data, already loaded (site.ts validates it before Astro starts). */
  data?: BuildData;
}

export default function treefarmData(options: TreefarmDataOptions = {}): AstroIntegration {
  let data = options.data;
  // The project Astro builds (its root): a data folder that is the project itself is recorded as unset.
  let projectDir = '';
  let downloads: Promise<NamedBytes[]> | undefined;
  // The near-miss index, made once (for the bundles, first) and read by the API and the wiki's
  // near-miss files; let go once they are written, as are the downloads.
  let nearShardsOf: NearShardsOf | undefined = nearShardsKeepingFirst();
  const nearShards = (): NearShardsOf => {
    if (!nearShardsOf) throw new Error('the near-miss index is read after the near-miss files were written');
    return nearShardsOf;
  };
  const loaded = (): BuildData => {
    if (!data) throw new Error('the build data is read in astro:config:setup, before any page or collection');
    return data;
  };
  // Made once: the downloads page shows their names, sizes and digests, and build:done writes them.
  const offlineBundles = () => {
    const { content, releases } = loaded();
    downloads ??= createDownloads(content, releases, nearShards());
    return downloads;
  };
  return {
    name: 'treefarm-data',
    hooks: {
      'astro:config:setup': ({ config, updateConfig }) => {
        projectDir = fileURLToPath(config.root);
        data ??= loadBuildData(contentDirOf(config.root));
        updateConfig({
          vite: {
            plugins: [
              wikiDataPlugin({
                records: () => collectionRecords(loaded()),
                site: async () => siteData(loaded(), latestOf(await offlineBundles())),
              }),
            ],
          },
        });
      },
      'astro:build:done': async ({ dir, logger }) => {
        const outDir = fileURLToPath(dir);
        // esbuild's processes have no more work once Astro has written the pages (Vite's and the MCP
        // views' pages', some 60 MiB at 10,000 trees); a later call would start one again.
        await stopEsbuild();
        // Handed over as getters, so that only writeApiAndDownloads's frame, gone when it returns, holds them.
        await writeApiAndDownloads(outDir, logger, { data: loaded(), nearShards, downloads: offlineBundles });
        nearShardsOf = undefined;
        downloads = undefined;
        const recorded = outputSettings(buildSettings(), projectDir);
        writeFileSync(join(outDir, BUILD_SETTINGS_FILE), `${JSON.stringify(recorded)}\n`);
        await indexForSearch(outDir, logger);
        // Last, so every file the build writes is counted.
        logDeployCheck(outDir, logger);
      },
    },
  };
}

/** The API, its JSON Schemas and OpenAPI, the downloads and the wiki's near-miss files, below outDir. */
async function writeApiAndDownloads(
  outDir: string,
  logger: AstroIntegrationLogger,
  made: { data: BuildData; nearShards: () => NearShardsOf; downloads: () => Promise<NamedBytes[]> },
): Promise<void> {
  const { content, releases } = made.data;
  const api = await emitApi(content, outDir, releases, made.nearShards());
  logger.info(
    `API: ${api.routes} routes (${releases.length} releases) answered by ${api.bodies} distinct bodies, ` +
      `each stored once with its br and gzip variants, in ${api.indexFiles} index files, ` +
      `data version ${api.manifest.version}`,
  );
  logger.info(emitSchemasAndDownloads(content, await made.downloads(), outDir));
  writeNearFiles(outDir, content, made.nearShards());
}

/**
 * The wiki's Pagefind index. Pagefind's process is the build's largest moment, so it runs last,
 * once the near-miss index and the downloads are let go, and after a collection that hands the
 * heap's free pages back to the system, which V8 would otherwise keep (at 10,000 trees some
 * 500 MiB; npm run build exposes gc). BENCHMARKS.md, Whole build.
 */
async function indexForSearch(outDir: string, logger: AstroIntegrationLogger): Promise<void> {
  globalThis.gc?.({ type: 'major', execution: 'sync', flavor: 'last-resort' });
  logger.info(await writeSearchIndex(outDir));
}

/** What a deploy of the build as a Cloudflare Worker uploads, and its warnings; the output is listed once. */
function logDeployCheck(outDir: string, logger: AstroIntegrationLogger): void {
  const written = assetFilesBelow(outDir);
  const ignored = assetsIgnoreOf(outDir);
  logger.info(deploySummary(written, ignored));
  for (const warning of workerAssetWarnings(written, ignored))
    logger.warn(`Deploying this build as a Cloudflare Worker: ${warning} (npm start has no such limit.)`);
}
