// What the build and `npm run release` are told by their environment, read and checked here, in
// one place, as src/server/settings.ts does for the serving processes.
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
      '`npm run release`).',
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

/** The settings that change what a build writes, by variable (null: unset), as BUILD_SETTINGS_FILE records them. */
export const outputSettings = ({ siteOrigin }: Pick<BuildSettings, 'siteOrigin'>): Record<string, string | null> => ({
  SITE_ORIGIN: siteOrigin ?? null,
});

/** The build's settings (an EnvironmentError naming each bad variable). */
export const buildSettings = (env: object = process.env): BuildSettings => readEnvironment(buildVariables, env);
