// How every command of the project explains itself (the npm scripts' commands and `treefarm`):
// `--help` (usage, options, the variables it reads, from their own definitions, and an example),
// `--version`, an unknown option or a bad argument refused with the usage line (exit status 2),
// and a mistake of the user's (a bad setting, a missing file) as one line, never a stack.
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { EnvironmentError, type Variable, type Variables } from '../schema/environment.ts';

export interface OptionSpec {
  type: 'string' | 'boolean';
  short?: string;
  /** Its value when not given (the help shows it). */
  default?: string | boolean;
  /** The value's name on the usage line: `<dir>`. */
  value?: string;
  /** The value is a whole number (checked before the command runs). */
  wholeNumber?: boolean;
  description: string;
}

export interface CommandSpec {
  /** How a user runs it: `npm run build`, `treefarm`. */
  command: string;
  /** What it does, in a sentence or two. */
  summary: string;
  /** The operands after the options, as the usage line shows them: `<name>`. */
  operands?: string;
  /** How many operands it takes, from and to (none when unset). */
  operandCount?: readonly [number, number];
  options: Readonly<Record<string, OptionSpec>>;
  /** The environment variables it reads: the settings' own definitions. */
  variables: Variables;
  examples: readonly string[];
  /** The versions it reports: the service's and its data's. */
  version: () => string | Promise<string>;
  /** Errors the user can fix, reported as one line (as EnvironmentError, UsageError and CommandError always are). */
  userErrors?: readonly (abstract new (
    ...args: never[]
  ) => Error)[];
  /** What a failure's line starts with: `Cannot start`. */
  failure?: string;
  /** Text after the environment's table (exit statuses, caveats). */
  epilogue?: string;
}

export class UsageError extends Error {
  override name = 'UsageError';
}

/** A failure the user can fix (a file to make first, a service to start): one line, exit status 1. */
export class CommandError extends Error {
  override name = 'CommandError';
}

export interface ParsedCommand {
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
}

/** What every command takes besides its own options. */
const COMMON: Readonly<Record<string, OptionSpec>> = {
  help: { type: 'boolean', short: 'h', description: 'this help' },
  version: { type: 'boolean', short: 'v', description: 'the version of the service and of its data' },
};

/** An npm script's operands follow `--`, which npm keeps for the command. */
const separator = (command: string) => (command.startsWith('npm ') ? ' --' : '');

const optionLabel = (name: string, { short, type, value }: OptionSpec) =>
  `${short ? `-${short}, ` : ''}--${name}${type === 'string' ? ` ${value ?? '<value>'}` : ''}`;

const optionText = ({ description, default: fallback, type }: OptionSpec) =>
  type === 'string' && fallback !== undefined ? `${description} (default: ${String(fallback)})` : description;

export function usageLine(spec: CommandSpec): string {
  const own = Object.entries(spec.options).map(([name, option]) => `[${optionLabel(name, option)}]`);
  const words = [...own, ...(spec.operands ? [spec.operands] : [])];
  return `Usage: ${spec.command}${words.length > 0 ? `${separator(spec.command)} ${words.join(' ')}` : ''}`;
}

/** A variable's description as a terminal shows it: no Markdown links or code marks. */
const plain = (text: string) => text.replace(/\[([^\]]+)\]\([^)]+\)/g, '$1').replace(/`/g, '');

function variableDefault({ fallback, shownDefault }: Variable<unknown>): string {
  if (shownDefault !== undefined) return plain(shownDefault);
  if (fallback === undefined) return 'unset';
  if (typeof fallback === 'boolean') return fallback ? 'on' : 'off';
  return Array.isArray(fallback) ? 'none' : String(fallback);
}

/** `text` in lines of at most `width` columns, each after `indent`. */
function wrapped(text: string, indent: string, width = 100): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    if (line !== '' && indent.length + line.length + 1 + word.length > width) {
      lines.push(indent + line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  if (line !== '') lines.push(indent + line);
  return lines;
}

/** The help's section on the variables a command reads, from their own definitions. */
export function environmentHelp(variables: Variables): string {
  const lines = Object.values(variables).flatMap((entry) => [
    `  ${entry.name} (default: ${variableDefault(entry)})`,
    ...wrapped(plain(entry.description), '      '),
  ]);
  return lines.length > 0 ? ['Environment:', ...lines].join('\n') : 'Environment: none read.';
}

export function helpText(spec: CommandSpec): string {
  const options = Object.entries({ ...spec.options, ...COMMON }).map(
    ([name, option]) => [optionLabel(name, option), optionText(option)] as const,
  );
  const width = Math.max(...options.map(([label]) => label.length));
  return [
    usageLine(spec),
    '',
    ...wrapped(spec.summary, ''),
    '',
    'Options:',
    ...options.map(([label, description]) => `  ${label.padEnd(width)}  ${description}`),
    '',
    environmentHelp(spec.variables),
    '',
    spec.examples.length > 1 ? 'Examples:' : 'Example:',
    ...spec.examples.map((example) => `  ${example}`),
    ...(spec.epilogue ? ['', spec.epilogue] : []),
  ].join('\n');
}

/** node:util's parseArgs's words, without its advice on "--" (npm scripts take that themselves). */
export const argumentProblem = (error: unknown): string =>
  (error as Error).message.replace(/ ?To specify a positional argument.*$/s, '');

/** The command line's options and operands, or a UsageError saying what is wrong with it. */
export function parseCommand(spec: CommandSpec, argv: readonly string[]): ParsedCommand {
  const options = Object.fromEntries(
    Object.entries({ ...spec.options, ...COMMON }).map(([name, { type, short, default: fallback }]) => [
      name,
      { type, ...(short ? { short } : {}), ...(fallback === undefined ? {} : { default: fallback }) },
    ]),
  );
  let parsed: ParsedCommand;
  try {
    parsed = parseArgs({ args: [...argv], options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(argumentProblem(error));
  }
  if (parsed.values.help || parsed.values.version) return parsed;
  for (const [name, option] of Object.entries(spec.options)) {
    const given = parsed.values[name];
    if (option.wholeNumber && typeof given === 'string' && !/^\d+$/.test(given))
      throw new UsageError(`--${name} takes a whole number, got ${JSON.stringify(given)}`);
  }
  const [least, most] = spec.operandCount ?? [0, 0];
  const count = parsed.positionals.length;
  if (count < least || count > most) {
    const wanted = most === 0 ? 'no operands' : least === most ? `${least}` : `${least} to ${most}`;
    const noun = most === 0 ? '' : most === 1 ? ' operand' : ' operands';
    const got = count === 0 ? 'none' : parsed.positionals.map((word) => JSON.stringify(word)).join(' ');
    throw new UsageError(`takes ${wanted}${noun} (${spec.operands ?? 'only options'}), got ${got}`);
  }
  return parsed;
}

export interface CommandIo {
  argv: readonly string[];
  out: (text: string) => void;
  err: (text: string) => void;
}

const processIo = (): CommandIo => ({
  argv: process.argv.slice(2),
  out: (text) => console.log(text),
  err: (text) => console.error(text),
});

const isUserError = (spec: CommandSpec, error: unknown) =>
  error instanceof EnvironmentError ||
  error instanceof UsageError ||
  error instanceof CommandError ||
  (spec.userErrors ?? []).some((type) => error instanceof type);

/**
 * Runs a command: --help and --version answered, the command line checked, then `main` with it.
 * Returns the exit status: `main`'s (0 when it returns nothing), 2 for a usage error, 1 for a
 * user's error (one line each); any other error is a fault of the program and keeps its stack.
 */
export async function runCommand(
  spec: CommandSpec,
  main: (command: ParsedCommand) => Promise<number | undefined> | number | undefined,
  io: CommandIo = processIo(),
): Promise<number> {
  const failure = spec.failure ?? spec.command;
  try {
    const parsed = parseCommand(spec, io.argv);
    if (parsed.values.help) io.out(helpText(spec));
    else if (parsed.values.version) io.out(await spec.version());
    else return (await main(parsed)) ?? 0;
    return 0;
  } catch (error) {
    if (!isUserError(spec, error)) throw error;
    const prefix = error instanceof UsageError ? spec.command : failure;
    // One prefix: a message of several lines (a list of fields Discord refused) keeps its own indents.
    io.err(`${prefix}: ${(error as Error).message}`);
    if (error instanceof UsageError)
      io.err(`${usageLine(spec)}\n(${spec.command}${separator(spec.command)} --help says more)`);
    return error instanceof UsageError ? 2 : 1;
  }
}

/** Runs the command on this process and sets its exit status. */
export async function runMain(
  spec: CommandSpec,
  main: (command: ParsedCommand) => Promise<number | undefined> | number | undefined,
): Promise<void> {
  const status = await runCommand(spec, main);
  // A failed command ends now, whatever it left open (a half-started server, a child); one that
  // succeeded runs on as long as it has work (a server serves until a signal).
  if (status !== 0) process.exit(status);
}

/**
 * A path a user gave a command, as that user meant it: npm runs a script in the project's
 * folder, so a relative path is resolved against the folder npm was run from (INIT_CWD).
 */
export const callerPath = (path: string, env: Record<string, string | undefined> = process.env): string =>
  resolve(env.INIT_CWD ?? process.cwd(), path);

/** The values of a command's options, typed by their specs: a string, a switch, given or defaulted. */
export type OptionValues<O extends Readonly<Record<string, OptionSpec>>> = {
  [K in keyof O]: O[K] extends { type: 'boolean' }
    ? boolean | (O[K] extends { default: boolean } ? never : undefined)
    : string | (O[K] extends { default: string } ? never : undefined);
};

/**
 * For a script that runs from its top (the benchmarks): its command line, typed, after --help,
 * --version and a usage error have been answered and the process ended.
 */
export async function commandLine<const O extends Readonly<Record<string, OptionSpec>>>(
  spec: CommandSpec & { options: O },
): Promise<{ values: OptionValues<O>; positionals: string[] }> {
  let parsed: ParsedCommand | undefined;
  const status = await runCommand(spec, (command) => {
    parsed = command;
    return 0;
  });
  if (parsed === undefined) process.exit(status);
  return parsed as { values: OptionValues<O>; positionals: string[] };
}
