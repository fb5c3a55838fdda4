// The whole build as a library call: validate the content, let Astro build the wiki (the
// integration adds the API, the search index and the bundles) into a staging folder, then
// swap it in as dist/. `npm run build` (cli.ts) calls it; `npm start` and `npm run deploy` when
// dist/ is stale.
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { projectDir } from '../cli/project-dir.ts';
import { build } from 'astro';
import { siteConfig } from './astro-config.ts';
import { replaceAtomically } from './atomic.ts';
import { type BuildDataLoader, loadBuildData } from './build-data.ts';
import { staleReason } from './freshness.ts';
import { contentDirOf } from './releases.ts';
import { buildSettings } from './settings.ts';

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
    // Astro writes the content layer's store to its cache folder and renders the pages from
    // that file: in the checkout's shared one (node_modules/.astro), another Astro process
    // (`astro sync` in typecheck, another build) could swap its content in. This build's own
    // folder, named after its staging folder so a killed build's is swept up with it; the
    // loader fills the store afresh each build, so nothing is lost by not keeping it.
    const cacheDir = mkdtempSync(`${staging}-astro-cache-`);
    try {
      await build({
        ...siteConfig({ data }),
        configFile: false,
        root: projectDir,
        outDir: staging,
        cacheDir,
        logLevel: buildSettings().quiet ? 'warn' : 'info',
      });
    } finally {
      rmSync(cacheDir, { recursive: true, force: true });
    }
  });
}

/** A build folder made from the project's sources: why it is stale (undefined when it is not), and its build. */
export interface Rebuildable {
  staleReason(): string | undefined;
  build(): Promise<void>;
}

/** The project's dist/, which `npm start` and `npm run deploy` build first when it is stale. */
export const projectBuild: Rebuildable = { staleReason: () => staleReason(projectDir), build: () => buildSite() };

/** Builds first when the build is missing or older than its sources, saying why. */
export async function buildWhenStale(target: Rebuildable, log: (line: string) => void): Promise<void> {
  const reason = target.staleReason();
  if (!reason) return;
  log(`Building first: ${reason}.`);
  await target.build();
}
