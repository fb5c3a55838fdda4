// One build, one content load. Astro loads the content collections' loader, the pages and the
// integration as separate module instances, so a module-level cache would still read and
// validate content/ once per instance. The session lives on globalThis instead: the first part
// of a build to ask loads the content, every later part of the same build gets that result,
// and the offline bundles made for the downloads page are the ones the integration writes.
import { channel } from 'node:diagnostics_channel';
import { resolve } from 'node:path';
import type { NamedBytes } from './bundles.ts';
import { type Content, loadContent } from './content.ts';

/** Published once per set of offline bundles made, with the data version. */
export const downloadsMadeChannel = channel('treefarm-data:downloads-made');

interface BuildSession {
  contentDir: string;
  content: Content;
  downloads?: Promise<NamedBytes[]>;
}

const SESSION = Symbol.for('treefarm-data.build-session');
const registry = globalThis as { [SESSION]?: BuildSession };

/** Starts a build's session: content/ is read and validated here, once (a ContentError if invalid). */
export function beginBuild(contentDir: string): Content {
  return startSession(contentDir).content;
}

/** Ends the session, so a later build in the same process reads the content afresh. */
export function endBuild(): void {
  delete registry[SESSION];
}

function startSession(contentDir: string): BuildSession {
  const session: BuildSession = { contentDir: resolve(contentDir), content: loadContent(contentDir) };
  registry[SESSION] = session;
  return session;
}

/** The session of the build under way; a build started by `astro build` alone begins it here. */
function sessionFor(contentDir: string): BuildSession {
  const session = registry[SESSION];
  // resolve(): "content/" from Astro's root URL and "content" from buildSite are one folder.
  return session?.contentDir === resolve(contentDir) ? session : startSession(contentDir);
}

/** The validated content of the build under way. */
export function buildContent(contentDir: string): Content {
  return sessionFor(contentDir).content;
}

/** The offline bundles of the build under way, made once for the page and the integration alike. */
export function buildDownloads(
  contentDir: string,
  make: (content: Content) => Promise<NamedBytes[]>,
): Promise<NamedBytes[]> {
  const session = sessionFor(contentDir);
  session.downloads ??= make(session.content).then((downloads) => {
    downloadsMadeChannel.publish({ version: session.content.version });
    return downloads;
  });
  return session.downloads;
}
