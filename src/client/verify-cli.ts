// `npm run bundle:verify -- <archive> [--sha256 <digest> | --url <site>]`: checks a bundle
// (with a digest, that it is the archive published; then manifest present, every file's size
// and sha256, counts) and prints its version and counts; exit status 1 on failure. What it
// prints is made printable: an archive's entry names reach the messages.
import '../cli/node-check.ts';
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { projectVersion } from '../cli/project-version.ts';
import { callerPath, type CommandSpec, type ParsedCommand, runMain, UsageError } from '../cli/command-line.ts';
import { verifyBundle } from './bundle.ts';
import { asSha256, notASha256, publishedSha256 } from './digest.ts';
import { TreefarmError } from './errors.ts';
import { printable, printableLine } from './terminal.ts';

const verifyCommand: CommandSpec = {
  command: 'npm run bundle:verify',
  summary:
    "Checks an offline bundle: with a digest, that it is the archive published; then its manifest, every file's " +
    'size and SHA-256, and the counts. Prints its data version and counts; exit status 1 when it is not valid.',
  operands: '<archive.tar.gz | archive.zip>',
  operandCount: [1, 1],
  options: {
    sha256: {
      type: 'string',
      value: '<digest>',
      description: 'the SHA-256 published for it: any other file is refused',
    },
    url: { type: 'string', value: '<site>', description: 'read that digest from <site>/downloads/latest.json' },
  },
  variables: {},
  examples: ['npm run bundle:verify -- ~/Downloads/treefarm-data-<version>.zip --url https://wiki.example.org'],
  version: () => projectVersion(),
};

const say = (text: string) => console.log(printable(text));
const complain = (text: string) => console.error(printable(text));

interface Invocation {
  /** As the user gave it, for the messages. */
  path: string;
  /** The expected digest, lowercase, when given. */
  sha256: string | undefined;
  /** The site whose latest.json gives the expected digest, when given. */
  url: string | undefined;
}

/** What the command line asks, or a UsageError saying what is wrong with it. */
function invocationOf({ values, positionals: [path = ''] }: ParsedCommand): Invocation {
  const sha256 = typeof values.sha256 === 'string' ? values.sha256 : undefined;
  const url = typeof values.url === 'string' ? values.url : undefined;
  if (sha256 !== undefined && url !== undefined) throw new UsageError('give --sha256 or --url, not both');
  const digest = sha256 === undefined ? undefined : asSha256(sha256);
  if (sha256 !== undefined && digest === undefined) throw new UsageError(notASha256(sha256, '--sha256'));
  if (url !== undefined && !URL.canParse(url)) throw new UsageError(`--url is not a URL: ${url}`);
  return { path, sha256: digest, url };
}

/** The digest the archive must have: the one given, or the one the site publishes for its file name. */
async function expectedDigest({ path, sha256, url }: Invocation): Promise<string | undefined> {
  return url === undefined ? sha256 : publishedSha256(url, basename(path));
}

async function main(command: ParsedCommand): Promise<number> {
  const invocation = invocationOf(command);
  const { path } = invocation;
  let sha256: string | undefined;
  try {
    sha256 = await expectedDigest(invocation);
  } catch (error) {
    complain(`${path}: cannot check it against the published digest. ${printableLine((error as Error).message)}`);
    return 1;
  }
  try {
    // npm runs the script in the project's folder: the path is the caller's.
    const bundle = await verifyBundle(new Uint8Array(await readFile(callerPath(path))), { sha256 });
    const checked = sha256 === undefined ? '' : `, SHA-256 ${sha256} as published`;
    say(`${path}: OK, data version ${bundle.version}, ${bundle.files.size} files verified${checked}`);
    for (const [kind, count] of Object.entries(bundle.counts)) say(`  ${kind.padEnd(9)} ${count}`);
    return 0;
  } catch (error) {
    const reason = error instanceof TreefarmError ? error.message : `cannot read it: ${(error as Error).message}`;
    complain(`${path}: NOT a valid bundle. ${printableLine(reason)}`);
    return 1;
  }
}

await runMain(verifyCommand, main);
