// `npm run token -- <name>`: makes a new API token (32 random bytes, base64url) and prints it
// with the `name:<sha256>` entry to add to API_TOKEN_SHA256, so the server holds only the
// digest and its access log shows the name.
import '../cli/node-check.ts';
import { createHash, randomBytes } from 'node:crypto';
import { projectVersion } from '../cli/project-version.ts';
import { type CommandSpec, runMain } from '../cli/command-line.ts';
import { TOKEN_NAME, TOKEN_NAME_RULE } from '../schema/environment.ts';

export interface NewToken {
  token: string;
  /** The API_TOKEN_SHA256 entry: `name:<sha256 of the token>`. */
  entry: string;
}

/** A new token named `name`; a RangeError when the name is not a token name. */
export function newToken(name: string | undefined): NewToken {
  if (name === undefined || !TOKEN_NAME.test(name))
    throw new RangeError(
      `a token name is ${TOKEN_NAME_RULE}, got ${name === undefined ? 'none' : JSON.stringify(name)} ` +
        '(usage: npm run token -- <name>)',
    );
  const token = randomBytes(32).toString('base64url');
  return { token, entry: `${name}:${createHash('sha256').update(token, 'utf8').digest('hex')}` };
}

const tokenCommand: CommandSpec = {
  command: 'npm run token',
  summary:
    'Makes a new API token (32 random bytes) and prints it once, with the name:<sha256> entry to add to ' +
    'API_TOKEN_SHA256: the server holds only the digest, and its access log shows the name.',
  operands: '<name>',
  operandCount: [1, 1],
  options: {},
  variables: {},
  examples: ['npm run token -- discord-bot'],
  version: () => projectVersion(),
  userErrors: [RangeError],
  failure: 'Cannot make a token',
};

if (import.meta.main) {
  await runMain(tokenCommand, ({ positionals }) => {
    const { token, entry } = newToken(positionals[0]);
    console.log(`Token (give it to its user; it is shown only now): ${token}`);
    console.log(`Add this entry to API_TOKEN_SHA256 (comma-separated): ${entry}`);
    return 0;
  });
}
