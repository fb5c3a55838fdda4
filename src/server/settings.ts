// What a serving run is told by its environment, and what it says when it starts.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeCounts, type Manifest } from '../schema/manifest.ts';

const projectDir = fileURLToPath(new URL('../../', import.meta.url));

export interface ServeSettings {
  distDir: string;
  port: number;
  host: string;
  tokens: string[];
  tokenSha256: string[];
  /** A token this run made up because none was configured; printed with a curl line. */
  madeUpToken?: string;
  workers: number;
}

function list(value: string | undefined): string[] {
  return (value ?? '').split(',').map((item) => item.trim()).filter((item) => item !== '');
}

function wholeNumber(name: string, fallback: number, min: number, max: number): number {
  const raw = process.env[name];
  const value = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) throw new Error(`${name} must be a whole number from ${min} to ${max}, not ${raw}`);
  return value;
}

export function settingsFromEnvironment(distDir = process.env.DIST_DIR || join(projectDir, 'dist')): ServeSettings {
  const tokens = list(process.env.API_TOKENS);
  const tokenSha256 = list(process.env.API_TOKEN_SHA256);
  // Never serve the API without a token: with none configured, make one up for this run.
  const madeUpToken = tokens.length === 0 && tokenSha256.length === 0 ? randomBytes(24).toString('base64url') : undefined;
  return {
    distDir,
    port: wholeNumber('PORT', 4321, 0, 65535),
    host: process.env.HOST || '127.0.0.1',
    tokens: madeUpToken ? [madeUpToken] : tokens,
    tokenSha256,
    madeUpToken,
    workers: wholeNumber('WORKERS', 1, 1, 64),
  };
}

export function describeBuild({ version, counts }: Manifest): string {
  return `data version ${version} (${describeCounts(counts)})`;
}

export function printBanner(settings: ServeSettings, url: string, manifest: Manifest): void {
  console.log(`Tree farm data: ${describeBuild(manifest)}${settings.workers > 1 ? `, ${settings.workers} processes` : ''}`);
  console.log(`  Wiki: ${url}/`);
  console.log(`  API:  ${url}/api/trees`);
  if (settings.madeUpToken) {
    console.log('No API token configured (API_TOKENS or API_TOKEN_SHA256), so this run made one up:');
    console.log(`  curl -H "Authorization: Bearer ${settings.madeUpToken}" "${url}/api/trees?search=Oak%20Tree"`);
  } else {
    console.log(`  ${settings.tokens.length + settings.tokenSha256.length} API token(s) configured.`);
  }
}

