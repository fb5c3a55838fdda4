// What a serving run is told by its environment, and what it says when it starts.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { localTokens, madeUpTokenNotice, type LocalTokens } from './local-tokens.ts';
import { describeCounts, type Manifest } from '../schema/manifest.ts';

const projectDir = fileURLToPath(new URL('../../', import.meta.url));

export interface ServeSettings extends LocalTokens {
  distDir: string;
  port: number;
  host: string;
  workers: number;
}

function wholeNumber(name: string, fallback: number, min: number, max: number): number {
  const raw = process.env[name];
  const value = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isInteger(value) || value < min || value > max)
    throw new Error(`${name} must be a whole number from ${min} to ${max}, not ${raw}`);
  return value;
}

export function settingsFromEnvironment(distDir = process.env.DIST_DIR || join(projectDir, 'dist')): ServeSettings {
  return {
    ...localTokens(process.env),
    distDir,
    port: wholeNumber('PORT', 4321, 0, 65535),
    host: process.env.HOST || '127.0.0.1',
    workers: wholeNumber('WORKERS', 1, 1, 64),
  };
}

/** What a banner or a reload line says of a build. */
export type BuildSummary = Pick<Manifest, 'version' | 'counts'>;

export function describeBuild({ version, counts }: BuildSummary): string {
  return `data version ${version} (${describeCounts(counts)})`;
}

export function printBanner(settings: ServeSettings, url: string, manifest: BuildSummary): void {
  console.log(
    `Tree farm data: ${describeBuild(manifest)}${settings.workers > 1 ? `, ${settings.workers} processes` : ''}`,
  );
  console.log(`  Wiki: ${url}/`);
  console.log(`  API:  ${url}/api/trees`);
  if (settings.madeUpToken) {
    console.log(madeUpTokenNotice(url, settings.madeUpToken));
  } else {
    console.log(`  ${settings.tokens.length + settings.tokenSha256.length} API token(s) configured.`);
  }
}
