// What `npm test` runs: Biome (`biome ci .`), the type checks (`npm run typecheck`), then
// `vitest run` with the options given (`npm test -- <options>`), stopping at the first that fails.
// Options that ask for vitest's help (`--help` or `-h`, with anything else: `--help --coverage` is
// that topic's help) go to vitest at once, with nothing checked first. Run by npm, whose PATH holds
// the project's own binaries (node_modules/.bin).
import { spawnSync } from 'node:child_process';

/** What `vitest run` answers with its help alone, whatever else is given (not --version: it runs the tests). */
const HELP = new Set(['--help', '-h']);

const options = process.argv.slice(2);
const steps: [string, string[]][] = [
  ['biome', ['ci', '.']],
  ['npm', ['run', 'typecheck']],
  ['vitest', ['run', ...options]],
];

for (const [command, args] of options.some((option) => HELP.has(option)) ? steps.slice(-1) : steps) {
  const { status, error } = spawnSync(command, args, { stdio: 'inherit' });
  if (error) {
    process.stderr.write(`npm test: cannot run ${command}: ${error.message}\n`);
    process.exit(1);
  }
  // A step killed by a signal has no status: a failure too.
  if (status !== 0) process.exit(status ?? 1);
}
