// What the build and `npm run release` are told by their environment, read and checked here, in
// one place, as src/server/settings.ts does for the serving processes.
import { resolve } from 'node:path';
import { z } from 'zod';
import { documented, folderPath, readEnvironment, type ValuesOf, variable } from '../schema/environment.ts';

/** What an origin is, after the variable's name. */
const ORIGIN_FORM = 'must be an origin such as https://wiki.example.org (http or https, no path, query or user)';

/** An http(s) origin, as the site's pages will name it in absolute URLs: "https://wiki.example.org". */
export const siteOrigin: z.ZodType<string, string> = z.string().transform((value, context) => {
  const url = URL.parse(value.trim());
  const bare = url && url.pathname === '/' && url.search === '' && url.hash === '' && !url.username && !url.password;
  if (bare && (url.protocol === 'https:' || url.protocol === 'http:')) return url.origin;
  context.addIssue({ code: 'custom', message: ORIGIN_FORM });
  return z.NEVER;
});

export const buildVariables = {
  /** The tests build temporary copies of content/ and releases/ this way. */
  dataDir: documented(
    variable('TREEFARM_DATA_DIR', folderPath),
    'A folder to read `content/` and `releases/` from instead of the project itself (`npm run build`, ' +
      '`npm run release`). `npm start` and `npm run deploy` build again when it names another folder than ' +
      'the build was made from, or a file there changed since.',
    'the project',
  ),
  /** Astro's `site`: the one source of every absolute URL the build writes. */
  siteOrigin: documented(
    variable('SITE_ORIGIN', siteOrigin),
    "The wiki's public origin, such as `https://wiki.example.org`: the build then writes each page's " +
      'canonical link and `og:url`, `sitemap-index.xml` and a `robots.txt` naming it ' +
      '([deploy.md](deploy.md#link-previews-and-search-engines)). Unset, the build writes no absolute URL. ' +
      '`npm start` and `npm run deploy` build again when it differs from the value the build was made with.',
    'unset',
  ),
  /** The cards' cache (src/wiki/card-render.ts): a test renders every card afresh in an empty one. */
  cardCacheDir: documented(
    variable('CARD_CACHE_DIR', folderPath),
    'Where the build keeps the cards it rendered (PNG, named by a hash of what each shows, its fonts and ' +
      'libraries), so the next build renders only the cards whose content changed ([cards.md](cards.md)).',
    '`node_modules/.cache/treefarm-cards`',
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

/** The folder a build reads content/ and releases/ from: TREEFARM_DATA_DIR, else the project itself; absolute. */
export const dataFolder = ({ dataDir }: Pick<BuildSettings, 'dataDir'>, projectDir: string): string =>
  resolve(dataDir ?? projectDir);

/** The settings that change what a build writes. */
export type OutputSettings = Pick<BuildSettings, 'siteOrigin' | 'dataDir'>;

/**
 * The settings that change what a build of `projectDir` writes, by variable (null: unset), as
 * BUILD_SETTINGS_FILE records them. The data folder is absolute, and null when it is the project
 * itself (the same build as with the variable unset). CI changes only what the build prints.
 */
export function outputSettings(settings: OutputSettings, projectDir: string): Record<string, string | null> {
  const data = dataFolder(settings, projectDir);
  return {
    SITE_ORIGIN: settings.siteOrigin ?? null,
    [buildVariables.dataDir.name]: data === resolve(projectDir) ? null : data,
  };
}

/** The build's settings (an EnvironmentError naming each bad variable). */
export const buildSettings = (env: object = process.env): BuildSettings => readEnvironment(buildVariables, env);
