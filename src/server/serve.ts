// `npm run serve`: serve the existing dist/ (wiki and API) until SIGTERM or SIGINT.
// PORT (4321), HOST (127.0.0.1), API_TOKENS and API_TOKEN_SHA256 come from the environment;
// DIST_DIR serves another build folder than dist/ (the reliability tests use copies).
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { kinds } from '../schema/kinds.ts';
import { startServer } from './app.ts';

const projectDir = fileURLToPath(new URL('../../', import.meta.url));

function list(value: string | undefined): string[] {
  return (value ?? '').split(',').map((item) => item.trim()).filter((item) => item !== '');
}

export async function serve(distDir = join(projectDir, 'dist')): Promise<void> {
  const port = Number(process.env.PORT ?? 4321);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`PORT must be a port number, not ${process.env.PORT}`);
  let tokens = list(process.env.API_TOKENS);
  const tokenSha256 = list(process.env.API_TOKEN_SHA256);
  // Never serve the API without a token: with none configured, make one up for this run.
  const madeUpToken = tokens.length === 0 && tokenSha256.length === 0 ? randomBytes(24).toString('base64url') : undefined;
  if (madeUpToken) tokens = [madeUpToken];

  const running = await startServer({ distDir, port, host: process.env.HOST ?? '127.0.0.1', tokens, tokenSha256 });
  const describe = () => {
    const { version, counts } = running.manifest();
    return `data version ${version} (${kinds.map((kind) => `${counts[kind.id] ?? 0} ${kind.id}`).join(', ')})`;
  };
  console.log(`Tree farm data: ${describe()}`);
  console.log(`  Wiki: ${running.url}/`);
  console.log(`  API:  ${running.url}/api/trees`);
  if (madeUpToken) {
    console.log('No API token configured (API_TOKENS or API_TOKEN_SHA256), so this run made one up:');
    console.log(`  curl -H "Authorization: Bearer ${madeUpToken}" "${running.url}/api/trees?search=Oak%20Tree"`);
  } else {
    console.log(`  ${tokens.length + tokenSha256.length} API token(s) configured.`);
  }

  process.on('SIGHUP', () => {
    try {
      running.reload();
      console.log(`Reloaded: ${describe()}`);
    } catch (error) {
      console.error(`Reload refused, still serving the previous build: ${(error as Error).message}`);
    }
  });
  const stop = (signal: string) => {
    console.log(`${signal}: finishing in-flight requests, then stopping.`);
    running.close().then(() => process.exit(0));
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  serve(process.env.DIST_DIR || undefined).catch((error: unknown) => {
    console.error(`Cannot start: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  });
}
