// The seam between the edge and its apps: an app is a Web-standard handler, `(Request, data) =>
// Promise<Response>`, mounted at one path with its own methods and bound on bodies (AppMount;
// each app's folder, src/apps/<name>/, holds its mount, and src/apps/mounts.ts lists them). Each
// adapter finds the app at a request's path once (mountAt) and hands it to the core with the
// request; the core decides only that the request goes to it (route.ts), and whether the API's
// token and rate limit guard it (core.ts); each adapter hands the request over through one bridge (the
// Node server's app-bridge.ts, the Worker's worker.ts), and both answer it by one step (appTable's
// `answer`): the 405 of a method outside the app's own, or the 503 of an app a malformed setting
// turned off, before anything is built from the request; else the app, loaded by its first request.
import { CACHE_ERROR, JSON_CONTENT_TYPE } from '../contract/headers.ts';
import { errorBody } from '../contract/messages.ts';
import type { RouteIndex } from '../contract/resolve.ts';
import type { Variables } from '../schema/environment.ts';
import type { AppHandOff, HeaderRecord, MountedApp } from './decision.ts';
import { once } from './once.ts';

/** What an app is handed beside its request: the build's index, and the headers the core adds to its answers. */
export interface AppData {
  readonly index: RouteIndex;
  readonly headers: HeaderRecord;
}

/** An app of the edge: answers every request the core hands it at its path, in any runtime. */
export type App = (request: Request, data: AppData) => Promise<Response>;

/** How a runtime loads an app: called by the app's first request (a module of its own, imported then). */
export type AppLoader = () => Promise<App>;

/**
 * Where an app is mounted and what it accepts: what the core (its name and guard, MountedApp) and
 * the bridges know of it without loading it. `Settings`: what the runtime's settings tell every app
 * (src/apps/mounts.ts).
 */
export interface AppMount<Settings = never> extends MountedApp {
  readonly path: string;
  /** The methods it answers, as its Allow header lists them (OPTIONS, a guarded app's preflight, is the core's). */
  readonly methods: string;
  /** The longest body it reads: a bridge reads no further, and hands over a longer one declared so, unread. */
  readonly maxBodyBytes: number;
  /** Its answer to a method outside `methods`, made from the method's name alone. */
  notAllowed(method: string, headers: HeaderRecord): Response;
  /**
   * The statuses a request to it is answered with (its own, and a guarded app's 401 and 429): the
   * Node server's metrics count each from the start, at 0 (src/server/metrics.ts).
   */
  readonly statuses: readonly number[];
  /** The variables of its settings (src/schema/environment.ts's definitions), which every runtime reads. */
  readonly variables: Variables;
  /** How to load it with these settings; undefined: it is off (its path is the site's). */
  loader(settings: Settings): AppLoader | undefined;
}

/**
 * The app mounted at `pathname` among `mounts` (its path itself only: below it is the site's). An
 * adapter asks once a request, and hands the core what it found (EdgeRequest's `mount`).
 */
export function mountAt(pathname: string, mounts: readonly AppMount<never>[]): AppMount<never> | undefined {
  for (const mount of mounts) if (mount.path === pathname) return mount;
  return undefined;
}

/** Whether `method` is one the app answers (in any letter case, as a Request normalises POST). */
export const allows = (mount: AppMount<never>, method: string): boolean =>
  mount.methods.split(', ').includes(method.toUpperCase());

/** A feature whose setting is malformed, so its app is off: the 503 on its path (its message names the setting). */
export const appUnavailable = (message: string): Response =>
  new Response(errorBody(message), {
    status: 503,
    headers: { 'Content-Type': JSON_CONTENT_TYPE, 'Cache-Control': CACHE_ERROR, 'Access-Control-Allow-Origin': '*' },
  });

/** The apps of one runtime, each loaded at its first request. */
export interface AppTable {
  /** The apps the core hands requests to (those turned off by a malformed setting too: they answer the 503). */
  readonly on: readonly AppMount<never>[];
  /** The app the core handed a request to by its name. */
  mountOf(name: string): AppMount<never>;
  /**
   * The one step of both runtimes for a request the core handed to an app: a method outside its
   * app's own, the app's 405; an app turned off by a malformed setting, the 503 naming it; else
   * the app's answer to `request()`, which is called only then (the Node server builds it from
   * its body), the app loaded once while that succeeds (a failed load is tried again).
   */
  answer(
    handOff: AppHandOff,
    method: string,
    request: () => Request | Promise<Request>,
    index: RouteIndex,
  ): Promise<Response>;
}

/**
 * The table of `mounts` as `settings` turn them on, and of those `disabled` turns off (by name,
 * each with the 503's message).
 */
export function appTable<Settings>(
  mounts: readonly AppMount<Settings>[],
  settings: Settings,
  disabled: ReadonlyMap<string, string> = new Map(),
): AppTable {
  const loaders = new Map<string, AppLoader>();
  for (const mount of mounts) {
    const loader = disabled.has(mount.name) ? undefined : mount.loader(settings);
    if (loader) loaders.set(mount.name, once(loader));
  }
  const on: readonly AppMount<never>[] = mounts.filter(({ name }) => loaders.has(name) || disabled.has(name));
  const mountOf = (name: string): AppMount<never> => {
    const mount = on.find((one) => one.name === name);
    if (!mount) throw new Error(`the core handed a request to the app ${name}, which is off`);
    return mount;
  };
  return {
    on,
    mountOf,
    async answer(handOff, method, request, index) {
      const off = disabled.get(handOff.app);
      if (off !== undefined) return appUnavailable(off);
      const mount = mountOf(handOff.app);
      if (!allows(mount, method)) return mount.notAllowed(method, handOff.headers);
      const app = await (loaders.get(handOff.app) as AppLoader)();
      return app(await request(), { index, headers: handOff.headers });
    },
  };
}
