// `npm run bundle:verify -- <archive> [--sha256 <digest> | --url <site>]`: checks a bundle
// (with a digest, that it is the archive published; then manifest present, every file's size
// and sha256, counts) and prints its version and counts; exit status 1 on failure. What it
// prints is made printable: an archive's entry names reach the messages.
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { parseArgs } from 'node:util';
import { verifyBundle } from './bundle.ts';
import { asSha256, notASha256, publishedSha256 } from './digest.ts';
import { TreefarmError } from './errors.ts';
import { printable, printableLine } from './terminal.ts';

const USAGE =
  'Usage: npm run bundle:verify -- <archive.tar.gz | archive.zip> [--sha256 <digest> | --url <site>]\n' +
  '  --sha256 <digest>  the SHA-256 published for the archive: any other file is refused\n' +
  '  --url <site>       read that digest from <site>/downloads/latest.json, by the file name';

const say = (text: string) => console.log(printable(text));
const complain = (text: string) => console.error(printable(text));

interface Invocation {
  path: string;
  /** The expected digest, lowercase, when given. */
  sha256: string | undefined;
  /** The site whose latest.json gives the expected digest, when given. */
  url: string | undefined;
}

/** What the command line asks, or what is wrong with it. */
function invocationOf(argv: string[]): Invocation | string {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    return (error as Error).message;
  }
  const { values, positionals } = parsed;
  const [path] = positionals;
  if (path === undefined || positionals.length !== 1) return 'Give one archive.';
  const { sha256, url } = values;
  if (sha256 !== undefined && url !== undefined) return 'Give --sha256 or --url, not both.';
  const digest = sha256 === undefined ? undefined : asSha256(sha256);
  if (sha256 !== undefined && digest === undefined) return notASha256(sha256, '--sha256');
  if (url !== undefined && !URL.canParse(url)) return `--url is not a URL: ${url}`;
  return { path, sha256: digest, url };
}

const parse = (argv: string[]) =>
  parseArgs({
    args: argv,
    allowPositionals: true,
    options: { sha256: { type: 'string' }, url: { type: 'string' } },
  });

/** The digest the archive must have: the one given, or the one the site publishes for its file name. */
async function expectedDigest({ path, sha256, url }: Invocation): Promise<string | undefined> {
  return url === undefined ? sha256 : publishedSha256(url, basename(path));
}

async function main(argv: string[]): Promise<number> {
  const invocation = invocationOf(argv);
  if (typeof invocation === 'string') {
    complain(`${invocation}\n${USAGE}`);
    return 1;
  }
  const { path } = invocation;
  let sha256: string | undefined;
  try {
    sha256 = await expectedDigest(invocation);
  } catch (error) {
    complain(`${path}: cannot check it against the published digest. ${printableLine((error as Error).message)}`);
    return 1;
  }
  try {
    const bundle = await verifyBundle(new Uint8Array(await readFile(path)), { sha256 });
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

process.exitCode = await main(process.argv.slice(2));
