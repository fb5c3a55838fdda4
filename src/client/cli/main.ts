// `treefarm`: the tree farm's data from a terminal. Exit status 0 when found, 1 when not
// found, 2 for a usage, token, bundle or network error; errors are one line on stderr.
// Everything printed is made printable first: records and errors may hold a bundle's text.
import { readFile } from 'node:fs/promises';
import { HEALTH_PATH } from '../../contract/health.ts';
import { recordsInWords, type Suggestion } from '../../contract/suggest.ts';
import { environmentHelp } from '../../cli/command-line.ts';
import type { ReleaseSummary } from '../../schema/releases.ts';
import { openBundle } from '../bundle.ts';
import { NotFoundError } from '../errors.ts';
import { printable, printableLine } from '../terminal.ts';
import { parseCommandLine, UsageError, type Command } from './args.ts';
import {
  cliVariables,
  expectedDigest,
  openSource,
  siteOf,
  siteOrigin,
  type Source,
  type SourceSettings,
} from './source.ts';
import { formatJson, formatTable } from './table.ts';

/** The oldest Node the package runs on: packages/client/package.json's engines names it. */
export const CLIENT_MINIMUM_NODE = '20.0.0';

export const USAGE = 'Usage: treefarm <command> [arguments] [options]';

export const HELP = `${USAGE}

The tree farm's reference data, from the API or from an offline bundle.

Commands:
  trees [search]          every tree, one by name ("oak tree"), or the trees of a level (5)
  cutters [search]        likewise for cutters, gifts, plots (level only), storages, vehicles
  suggest <kind> <text>   up to 25 names that complete <text>, for type-ahead
  releases                the data releases, newest first
  mcp --bundle <file>     serve the data to an AI assistant (MCP over stdio) from a bundle
  economics               every tree's harvest value, profit per harvest and per hour, cost to
                          reach and upgrade payback (hours), on a normal plot or --plot's

Options:
  --json                  print the data as JSON, for scripts
  --bundle <file>         answer from an offline bundle (.tar.gz or .zip) instead of the API
  --sha256 <digest>       the bundle's SHA-256 as published: any other file is refused; with
                          --url and no --sha256, the digest the site publishes for it is read
                          from <address>/downloads/latest.json
  --url <address>         the site of the API (default: TREEFARM_URL, else http://127.0.0.1:4321)
  --plot <level>          economics on the plot of that level (its growth speed)
  -h, --help              this help
  -v, --version           the version of treefarm and of the data it would answer from

${environmentHelp(cliVariables)}

Exit status: 0 found, 1 not found, 2 usage, token, bundle or network error.

Examples:
  treefarm trees "oak tree"
  treefarm cutters 3 --json
  treefarm suggest trees oa
  treefarm vehicles --bundle treefarm-data-<version>.tar.gz
  treefarm economics --plot 3 --json

Economics assumes a tree is replanted at once after each harvest and that cutting, storing
and delivering the logs hold nothing back (the game does not publish those rules); upgrade
payback is the upgrade cost over the profit per hour it adds to the tree one level below.`;

export const MCP_HELP = `Usage: treefarm mcp --bundle <file> [--sha256 <digest> | --url <address>]

Serves an offline bundle's data to an AI assistant: the Model Context Protocol over stdin and
stdout, until the assistant closes it. Its tools, resources and prompts answer as the API does.

Options:
  --bundle <file>         the offline bundle (.tar.gz or .zip from /downloads); required
  --sha256 <digest>       the bundle's SHA-256 as published: any other file is refused
  --url <address>         the site the answers link to; with no --sha256, the digest it
                          publishes for the bundle is read from <address>/downloads/latest.json
  -h, --help              this help

Example (an assistant's MCP settings run this command):
  treefarm mcp --bundle treefarm-data-<version>.tar.gz`;

export interface Io {
  argv: readonly string[];
  env: Record<string, string | undefined>;
  out: (text: string) => void;
  err: (text: string) => void;
}

export async function run({ argv, env, out: write, err: writeError }: Io): Promise<number> {
  const out = (text: string) => write(printable(text));
  const err = (text: string) => writeError(printable(text));
  try {
    const { command, json, ...settings } = parseCommandLine(argv);
    if (command.name === 'help') {
      out(command.topic === 'mcp' ? MCP_HELP : HELP);
      return 0;
    }
    if (command.name === 'version') {
      out(await versions({ ...settings, env }));
      return 0;
    }
    if (command.name === 'mcp') return await serveMcp(settings, env, err);
    const source = await openSource({ ...settings, env });
    const data = await answer(source, command).catch(async (error: unknown) => {
      throw error instanceof NotFoundError ? await withNearest(source, command, error) : error;
    });
    if (data.length === 0) {
      err(`treefarm: nothing matches ${argv.filter((word) => !word.startsWith('-')).join(' ')}`);
      return 1;
    }
    if (json) out(formatJson(data));
    // Releases are a list however many there are, each a row: their changes counted, the records --json's.
    else out(command.name === 'releases' ? formatTable(releaseRows(data), { rows: true }) : formatTable(data));
    return 0;
  } catch (error) {
    err(`treefarm: ${oneLine(error)}`);
    if (error instanceof UsageError) err(`${USAGE} (treefarm --help lists the commands)`);
    return error instanceof NotFoundError ? 1 : 2;
  }
}

/**
 * A miss of a search in the CLI's words (the API's speaks of IDs, which a search never takes),
 * with the names the API suggests for the same text (typos forgiven): `treefarm trees sequioa`
 * names Giant Sequoia.
 */
async function withNearest(source: Source, command: Command, error: NotFoundError): Promise<NotFoundError> {
  if (command.name !== 'records' || command.search === null) return error;
  // The kind's id, not its noun: the noun is in the schema registry, which pulls zod in.
  const miss = `Nothing in ${command.kind} has the name, earlier name or level "${command.search}".`;
  const near = (await source.suggest(command.kind, command.search).catch(() => [])) as Suggestion[];
  const message = near.length === 0 ? miss : `${miss} The nearest: ${recordsInWords(near, 5)}.`;
  return new NotFoundError(message, command.kind, command.search, { request: error.request, response: error.response });
}

/** `treefarm mcp --bundle <file>`: the MCP server over stdio until the client closes it; wiki links to --url's site. */
async function serveMcp(
  settings: Omit<SourceSettings, 'env'>,
  env: SourceSettings['env'],
  err: (text: string) => void,
): Promise<number> {
  const { bundle, url, sha256 } = settings;
  if (bundle === undefined)
    throw new UsageError('mcp serves a bundle: give it with --bundle <file> (a .tar.gz or .zip from /downloads)');
  // Imported here: the SDK is needed by this command only.
  const { serveBundleOverStdio } = await import('../mcp.ts');
  await serveBundleOverStdio(bundle, err, siteOrigin(url, env), await expectedDigest(bundle, url, sha256));
  return 0;
}

function answer(source: Source, command: Exclude<Command, { name: 'help' | 'version' | 'mcp' }>): Promise<unknown[]> {
  switch (command.name) {
    case 'records':
      return source.records(command.kind, command.search);
    case 'suggest':
      return source.suggest(command.kind, command.text);
    case 'releases':
      return source.releases();
    case 'economics':
      return source.economics(command.plot);
  }
}

function oneLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return printableLine(message).replace(/\s+/g, ' ').trim();
}

/** The version in the package's package.json, next to the built dist/. */
async function packageVersion(): Promise<string> {
  try {
    const text = await readFile(new URL('../package.json', import.meta.url), 'utf8');
    return (JSON.parse(text) as { version: string }).version;
  } catch {
    return 'unknown (not run from the package)';
  }
}

/** treefarm's version, and the data's: the bundle's, or what the site's /healthz says it serves. */
async function versions({ bundle, url, env }: Omit<SourceSettings, 'sha256'>): Promise<string> {
  const own = `treefarm (treefarm-data-client) ${await packageVersion()}`;
  if (bundle !== undefined) return `${own}\ndata version ${(await openBundle(bundle)).version} (${bundle})`;
  const site = siteOf(url, env);
  try {
    const response = await fetch(new URL(HEALTH_PATH, site), { signal: AbortSignal.timeout(HEALTH_TIMEOUT) });
    const { dataVersion } = (await response.json()) as { dataVersion?: unknown };
    if (typeof dataVersion !== 'string') throw new Error(`${HEALTH_PATH} named no dataVersion`);
    return `${own}\ndata version ${dataVersion} (${site})`;
  } catch (error) {
    return `${own}\ndata: ${site} did not answer ${HEALTH_PATH} (${oneLine(error)})`;
  }
}

/** How long --version waits for the site's /healthz, in milliseconds. */
const HEALTH_TIMEOUT = 3_000;

/** A release as a table's row: its changes counted (the full lists are --json's). */
const releaseRows = (releases: readonly unknown[]) =>
  (releases as ReleaseSummary[]).map(({ id, date, version, changes, notes }) => ({
    id,
    date,
    version,
    added: changes.added.length,
    removed: changes.removed.length,
    changed: changes.changed.length,
    notes,
  }));
