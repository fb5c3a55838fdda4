// What a serving process is told by its environment, read and checked here, once per process
// and alike in every entry point (npm start, npm run serve, npm run worker, each process the
// supervisor forks): a bad value stops the process with one message naming the variable and
// the value. Adding a variable is one line of `serveVariables`, read as `settings.<key>`.
import { join } from 'node:path';
import { projectDir } from '../cli/project-dir.ts';
import {
  documented,
  folderPath,
  hostName,
  metricsVariables,
  onOff,
  rateLimitVariables,
  readEnvironment,
  tokenVariables,
  type ValuesOf,
  variable,
  wholeNumberFrom,
} from '../schema/environment.ts';
import { appVariables } from '../apps/mounts.ts';
import { z } from 'zod';
import { STATIC_ASSET_FILE_BYTES } from '../contract/bucket-layout.ts';
import { describeCounts, type Manifest } from '../schema/manifest.ts';
import { FORWARDING_HEADERS, type ForwardingHeader } from '../edge/forwarded.ts';
import { type TrustedProxies, trustedProxies } from '../edge/trusted-proxies.ts';
import { localTokens, madeUpTokenNotice, type LocalTokens } from './local-tokens.ts';

/** TRUST_PROXY: `off`, hops, addresses, ranges, `loopback`, `private`, `every-peer` (src/edge/trusted-proxies.ts). */
const proxyTrust: z.ZodType<TrustedProxies | undefined, string> = z.string().transform((value, context) => {
  if (value.trim().toLowerCase() === 'off') return undefined;
  const trusted = trustedProxies(value);
  if (typeof trusted === 'object') return trusted;
  context.addIssue({ code: 'custom', message: trusted });
  return z.NEVER;
});

/** TRUST_PROXY_HEADER: the header the trusted proxies forward the client's address in. */
const forwardingHeader: z.ZodType<ForwardingHeader, string> = z
  .string()
  .trim()
  .toLowerCase()
  .pipe(z.enum(FORWARDING_HEADERS, { error: `must be ${FORWARDING_HEADERS.join(' or ')}` }));

/** The variables of a serving process, by the settings key they are read into. */
export const serveVariables = {
  port: documented(variable('PORT', wholeNumberFrom(0, 65535), 4321), 'The port to listen on (0: any free port).'),
  host: documented(variable('HOST', hostName, '127.0.0.1'), 'The address to listen on (`0.0.0.0`: every interface).'),
  processes: documented(
    variable('WORKERS', wholeNumberFrom(1, 64), 1),
    'How many serving processes share the port (1 to 64), under one supervisor.',
  ),
  /** Another build folder than dist/ (the reliability tests serve copies). */
  distDir: documented(
    variable('DIST_DIR', folderPath, join(projectDir, 'dist')),
    'The build folder to serve.',
    'dist/',
  ),
  ...tokenVariables,
  ...rateLimitVariables,
  ...appVariables,
  ...metricsVariables,
  /** One JSON line per request on stdout; `off` turns it off. */
  accessLog: documented(
    variable('ACCESS_LOG', onOff, true),
    'One JSON line per request on stdout (`on` or `off`; [running.md](running.md#access-log)).',
    'on',
  ),
  /** The proxies in front of the server, whose forwarded client address, scheme and host are believed; else off. */
  trustProxy: documented(
    variable('TRUST_PROXY', proxyTrust),
    'The proxies in front of the server whose forwarded client address, scheme and host are believed: addresses, ' +
      'CIDR ranges, `loopback`, `private`, or a number of hops ' +
      '([deploy.md](deploy.md#the-node-server-behind-a-reverse-proxy)). Ranges covering a whole address family, ' +
      'one alone (`0.0.0.0/0`, `::/0`) or together (`0.0.0.0/1,128.0.0.0/1`), are refused; `every-peer` alone ' +
      'trusts every peer, so any client that reaches the server directly names its own address: only where ' +
      'nothing but the proxies can reach it.',
    'off: the socket is the client',
  ),
  trustProxyHeader: documented(
    variable('TRUST_PROXY_HEADER', forwardingHeader, 'x-forwarded-for'),
    "The header the trusted proxies forward the client's address in: `x-forwarded-for` or `forwarded` (RFC 7239).",
  ),
};

export type ServeSettings = ValuesOf<typeof serveVariables> & LocalTokens;

/** Where `npm run worker` keeps the API's files: the static assets, or R2 (docs/deploy.md). */
export const bodiesModes = z
  .string()
  .trim()
  .toLowerCase()
  .pipe(z.enum(['assets', 'r2'], { error: 'must be assets or r2' }));

export type BodiesMode = z.output<typeof bodiesModes>;

/** The R2 mode's bucket when R2_BUCKET is not set: a local run's, and a deploy's by default. */
export const DEFAULT_BUCKET = 'treefarm-data-api';

/** An R2 bucket's name as Cloudflare allows it: 3 to 63 lowercase letters, digits and hyphens. */
const bucketName = z
  .string()
  .trim()
  .regex(/^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$/, 'must be 3 to 63 lowercase letters, digits and hyphens');

const SIZE_UNITS: Record<string, number> = { b: 1, kib: 1024, mib: 1024 ** 2, gib: 1024 ** 3 };

/**
 * A size of a download, in bytes or with a binary unit (`0`, `1048576`, `512KiB`, `25MiB`), at
 * most the largest static asset file: past that a download could not deploy as one.
 */
const downloadSize = z
  .string()
  .trim()
  .transform((value, context) => {
    const match = /^(\d+)\s*(b|kib|mib|gib)?$/i.exec(value);
    const bytes = match ? Number(match[1]) * (SIZE_UNITS[(match[2] ?? 'b').toLowerCase()] ?? 1) : Number.NaN;
    if (!(bytes <= STATIC_ASSET_FILE_BYTES)) {
      context.addIssue({
        code: 'custom',
        message:
          'must be a size in bytes or with a unit (B, KiB, MiB, GiB), such as 25MiB or 0, ' +
          'of at most 25MiB (the largest static asset file)',
      });
      return z.NEVER;
    }
    return bytes;
  });

/** `npm run worker` reads the same variables, and BODIES; wrangler's own port is its default. */
export const workerDevVariables = {
  ...serveVariables,
  port: documented(variable('PORT', wholeNumberFrom(0, 65535), 8787), 'The port to listen on.'),
  bodies: documented(
    variable('BODIES', bodiesModes, 'assets'),
    "Where the API's files go: `assets` (the Worker's static assets) or `r2` (an R2 bucket; " +
      '[deploy.md](deploy.md#past-the-limits-the-r2-mode)).',
  ),
  /** The R2 mode's bucket (`npm run deploy`): Cloudflare's rule for a bucket's name. */
  bucket: documented(variable('R2_BUCKET', bucketName, DEFAULT_BUCKET), "The R2 mode's bucket."),
  /** The R2 mode: an offline bundle larger than this goes to the bucket, not the static assets. */
  downloadsAbove: documented(
    variable('R2_DOWNLOADS_ABOVE', downloadSize, STATIC_ASSET_FILE_BYTES),
    'In the R2 mode, offline bundles larger than this (bytes, or with KiB, MiB, GiB) go to the bucket.',
    '25MiB',
  ),
};

export type WorkerDevSettings = ValuesOf<typeof workerDevVariables> & LocalTokens;

/** The settings of this process (an EnvironmentError naming each bad variable). */
export function settingsFromEnvironment<V extends typeof serveVariables>(
  env: object = process.env,
  variables: V = serveVariables as V,
): ValuesOf<V> & LocalTokens {
  const values = readEnvironment(variables, env);
  const serving: ValuesOf<typeof serveVariables> = values;
  return { ...values, ...localTokens(serving) };
}

/** What a banner or a reload line says of a build. */
export type BuildSummary = Pick<Manifest, 'version' | 'counts'>;

export function describeBuild({ version, counts }: BuildSummary): string {
  return `data version ${version} (${describeCounts(counts)})`;
}

export function printBanner(settings: ServeSettings, url: string, manifest: BuildSummary): void {
  console.log(
    `Tree farm data: ${describeBuild(manifest)}${settings.processes > 1 ? `, ${settings.processes} processes` : ''}`,
  );
  console.log(`  Wiki: ${url}/`);
  console.log(`  API:  ${url}/api/trees`);
  if (settings.madeUpToken) {
    console.log(madeUpTokenNotice(url, settings.madeUpToken));
  } else {
    console.log(`  ${settings.tokens.length + settings.tokenSha256.length} API token(s) configured.`);
  }
  if (settings.trustProxy) {
    const header = settings.trustProxyHeader === 'forwarded' ? 'Forwarded' : 'X-Forwarded-For';
    console.log(`  Client addresses: as the proxies TRUST_PROXY names forward them in ${header}.`);
    if ('everyPeer' in settings.trustProxy)
      console.log('  TRUST_PROXY=every-peer: every peer is trusted; only proxies must be able to reach this server.');
  }
}
