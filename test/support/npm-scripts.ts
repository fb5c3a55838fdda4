// The npm scripts that run a file of the project with Node: `node [flags] <file>`, or `exec node ...`
// (npm's signals then reach Node itself). The tests that check every command line read them here.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectDir } from '../../src/cli/project-dir.ts';

/** Each such script's name and the file it runs (Node's flags, such as --expose-gc, left out). */
export function nodeScripts(): { script: string; file: string }[] {
  const { scripts } = JSON.parse(readFileSync(join(projectDir, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  return Object.entries(scripts).flatMap(([script, command]) => {
    const file = /^(?:exec )?node (?:--\S+ )*(\S+\.ts)/.exec(command)?.[1];
    return file === undefined ? [] : [{ script, file }];
  });
}
