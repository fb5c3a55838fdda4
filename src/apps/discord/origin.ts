// The origin the app's links point to: the site's public origin when the build was given one
// (SITE_ORIGIN, carried in the index's pages bodies), else the origin the request came to
// (which the runtime makes the public one behind a trusted proxy).
import { pagesRoute } from '../../contract/paths.ts';
import { pagesOriginOf } from '../../contract/record-pages.ts';
import { currentRoute, type RouteIndex } from '../../contract/resolve.ts';

/** The build's origin per index: a build never changes under its index. */
const built = new WeakMap<RouteIndex, Promise<string | undefined>>();

async function builtOrigin(index: RouteIndex): Promise<string | undefined> {
  // The plots' is the smallest pages body; every kind's carries the same origin.
  return pagesOriginOf(await index.text((await currentRoute(index, pagesRoute('plots'))).body));
}

/** The origin of the app's links for a request to `requestUrl`. */
export async function linkOrigin(index: RouteIndex, requestUrl: string): Promise<string> {
  let origin = built.get(index);
  if (origin === undefined) {
    origin = builtOrigin(index);
    built.set(index, origin);
  }
  return (await origin) ?? new URL(requestUrl).origin;
}
