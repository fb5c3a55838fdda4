// The CLI's command line: a command, its arguments and the options, checked before any
// request, so a mistake is a usage error (exit status 2) with a message that says which.
import { parseArgs } from 'node:util';
import { kindIds, type KindId } from '../../schema/kind-ids.ts';
import { argumentProblem, UsageError } from '../../cli/command-line.ts';
import { asSha256, notASha256 } from '../digest.ts';

export type Command =
  | { name: 'records'; kind: KindId; search: string | null }
  | { name: 'suggest'; kind: KindId; text: string }
  | { name: 'releases' }
  | { name: 'economics'; plot: number | undefined }
  | { name: 'mcp' }
  /** The general help, or a command's own (`treefarm mcp --help`). */
  | { name: 'help'; topic?: 'mcp' }
  | { name: 'version' };

export interface Invocation {
  command: Command;
  json: boolean;
  bundle: string | undefined;
  url: string | undefined;
  /** The bundle's expected SHA-256, lowercase. */
  sha256: string | undefined;
}

// One kind of usage error for every command of the project.
export { UsageError } from '../../cli/command-line.ts';

const isKind = (word: string | undefined): word is KindId => kindIds.some((kind) => kind === word);
const KINDS = kindIds.join(', ');

export function parseCommandLine(argv: readonly string[]): Invocation {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    throw new UsageError(argumentProblem(error));
  }
  const { values, positionals } = parsed;
  const options = { json: values.json ?? false, bundle: values.bundle, url: values.url, sha256: digestOf(values) };
  if (values.help)
    return { command: positionals[0] === 'mcp' ? { name: 'help', topic: 'mcp' } : { name: 'help' }, ...options };
  if (values.version) return { command: { name: 'version' }, ...options };
  const command = commandOf(positionals, values.plot);
  if (values.plot !== undefined && command.name !== 'economics')
    throw new UsageError(
      `--plot is an option of economics, not of ${command.name === 'records' ? command.kind : command.name}`,
    );
  return { command, ...options };
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      json: { type: 'boolean' },
      bundle: { type: 'string' },
      url: { type: 'string' },
      sha256: { type: 'string' },
      plot: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean', short: 'v' },
    },
  });
}

/** --sha256 as a digest: only with --bundle, 64 hexadecimal digits. */
function digestOf({
  sha256,
  bundle,
}: {
  sha256?: string | undefined;
  bundle?: string | undefined;
}): string | undefined {
  if (sha256 === undefined) return undefined;
  if (bundle === undefined)
    throw new UsageError('--sha256 is the digest of a bundle: give the bundle with --bundle <file>');
  const digest = asSha256(sha256);
  if (digest === undefined) throw new UsageError(notASha256(sha256, '--sha256'));
  return digest;
}

/** A plot level as typed after --plot: a whole number from 1. */
function plotLevel(text: string): number {
  const level = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(level) || level < 1)
    throw new UsageError(`--plot takes a plot level, a whole number from 1, got ${JSON.stringify(text)}`);
  return level;
}

function commandOf([name, ...rest]: string[], plot: string | undefined): Command {
  if (name === undefined || name === 'help') return { name: 'help' };
  if (isKind(name)) {
    if (rest.length > 1)
      throw new UsageError(`${name} takes one search; quote a name with spaces: "${rest.join(' ')}"`);
    return { name: 'records', kind: name, search: rest[0] ?? null };
  }
  if (name === 'suggest') {
    const [kind, ...words] = rest;
    if (!isKind(kind)) throw new UsageError(`suggest needs a kind first (${KINDS}), got ${kind ?? 'nothing'}`);
    return { name: 'suggest', kind, text: words.join(' ') };
  }
  if (name === 'releases') {
    if (rest.length > 0) throw new UsageError(`releases takes no arguments, got ${rest.join(' ')}`);
    return { name: 'releases' };
  }
  if (name === 'economics') {
    if (rest.length > 0)
      throw new UsageError(`economics takes no arguments, got ${rest.join(' ')}; --plot <level> picks the plot`);
    return { name: 'economics', plot: plot === undefined ? undefined : plotLevel(plot) };
  }
  if (name === 'mcp') {
    if (rest.length > 0)
      throw new UsageError(`mcp takes no arguments, got ${rest.join(' ')}; --bundle <file> names the data`);
    return { name: 'mcp' };
  }
  throw new UsageError(`unknown command ${name}; the commands are ${KINDS}, suggest, releases, economics and mcp`);
}
