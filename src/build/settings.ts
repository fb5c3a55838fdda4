// What the build and `npm run release` are told by their environment, read and checked here, in
// one place, as src/server/settings.ts does for the serving processes.
import { z } from 'zod';
import { documented, folderPath, readEnvironment, type ValuesOf, variable } from '../schema/environment.ts';

export const buildVariables = {
  /** The tests build temporary copies of content/ and releases/ this way. */
  dataDir: documented(
    variable('TREEFARM_DATA_DIR', folderPath),
    'A folder to read `content/` and `releases/` from instead of the project itself (`npm run build`, ' +
      '`npm run release`).',
    'the project',
  ),
  /** Set by CI systems, each to a value of its own: any value counts. */
  quiet: documented(
    variable(
      'CI',
      z.string().transform(() => true),
      false,
    ),
    'Set to anything (as CI systems do), the build prints its warnings only.',
    'unset',
  ),
};

export type BuildSettings = ValuesOf<typeof buildVariables>;

/** The build's settings (an EnvironmentError naming each bad variable). */
export const buildSettings = (env: object = process.env): BuildSettings => readEnvironment(buildVariables, env);
