// `npm run docs:configuration`: writes docs/configuration.md, the one table of every environment
// variable, from the settings' own definitions (each process's `documented` variables), so the
// docs cannot list a variable the code does not read or miss one it does. A test compares the
// file with what this makes.
import '../cli/node-check.ts';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cliVariables } from '../client/cli/source.ts';
import { projectVersion } from '../cli/project-version.ts';
import { type CommandSpec, runMain } from '../cli/command-line.ts';
import { registerVariables } from '../apps/discord/cli/settings.ts';
import type { Variable, Variables } from '../schema/environment.ts';
import { serveVariables, workerDevVariables } from '../server/settings.ts';
import { workerVariables } from '../worker/settings.ts';
import { buildVariables } from './settings.ts';
import { projectDir } from '../cli/project-dir.ts';

export const CONFIGURATION_DOC = 'docs/configuration.md';

const { port, distDir, tokens, tokenSha256, rateLimit, discordPublicKey, bodies, bucket, downloadsAbove } =
  workerDevVariables;

/** Who reads which variables: each process's own definitions. */
export const readers: readonly { who: string; variables: Variables }[] = [
  { who: '`npm start`, `npm run serve`', variables: serveVariables },
  {
    who: '`npm run worker`, `npm run deploy`',
    variables: { port, distDir, tokens, tokenSha256, rateLimit, discordPublicKey, bodies, bucket, downloadsAbove },
  },
  { who: 'the Worker (a variable or secret)', variables: workerVariables },
  { who: '`npm run build`, `npm run release`', variables: buildVariables },
  { who: 'the `treefarm` command', variables: cliVariables },
  { who: '`npm run discord:register`', variables: registerVariables },
];

function shownDefault({ fallback, shownDefault: shown }: Variable<unknown>): string {
  if (shown !== undefined) return shown;
  if (fallback === undefined) return 'unset';
  if (typeof fallback === 'boolean') return fallback ? 'on' : 'off';
  return `\`${String(fallback)}\``;
}

interface Row {
  name: string;
  readers: string[];
  defaults: string[];
  description: string;
}

/** The page: one row per variable, its readers and defaults joined where processes differ. */
export function configurationPage(): string {
  const rows = new Map<string, Row>();
  for (const { who, variables } of readers) {
    for (const entry of Object.values(variables)) {
      if (entry.description === '') throw new Error(`${entry.name} has no description: give it one with documented()`);
      const row = rows.get(entry.name) ?? {
        name: entry.name,
        readers: [],
        defaults: [],
        description: entry.description,
      };
      const fallback = shownDefault(entry);
      if (row.defaults.length > 0 && !row.defaults.some((text) => text.endsWith(fallback)))
        row.defaults.push(`${who}: ${fallback}`);
      else if (row.defaults.length === 0) row.defaults.push(fallback);
      row.readers.push(who);
      rows.set(entry.name, row);
    }
  }
  const table = [...rows.values()].map(
    ({ name, readers: who, defaults, description }) =>
      `| \`${name}\` | ${who.join('; ')} | ${defaults.join('; ')} | ${description} |`,
  );
  return [
    '# Configuration',
    '',
    'Every setting is an environment variable, checked when the process that reads it starts: a bad',
    'value stops it with one message naming the variable and the value (a secret is named, never',
    "shown), and an empty variable counts as unset. This table is made from the settings' own",
    'definitions by `npm run docs:configuration`; a test fails when it is out of date.',
    '',
    '| variable | read by | default | what it sets |',
    '| --- | --- | --- | --- |',
    ...table,
    '',
  ].join('\n');
}

const configurationCommand: CommandSpec = {
  command: 'npm run docs:configuration',
  summary: `Writes ${CONFIGURATION_DOC}, the table of every environment variable, from the settings' own definitions.`,
  options: {},
  variables: {},
  examples: ['npm run docs:configuration'],
  version: () => projectVersion(),
};

if (import.meta.main) {
  await runMain(configurationCommand, () => {
    const path = join(projectDir, CONFIGURATION_DOC);
    const page = configurationPage();
    const changed = readFileSync(path, { encoding: 'utf8', flag: 'a+' }) !== page;
    writeFileSync(path, page);
    console.log(changed ? `Wrote ${CONFIGURATION_DOC}.` : `${CONFIGURATION_DOC} was up to date.`);
    return 0;
  });
}
