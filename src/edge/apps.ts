// The seam between the edge and its apps: an app is a Web-standard handler, `(Request, data) =>
// Promise<Response>`, mounted at one path with its own methods and bound on bodies. The core
// decides only that a request goes to an app (route.ts), and whether the API's token and rate
// limit guard it (core.ts); each adapter hands the request over through one bridge (the Node
// server's app-bridge.ts, the Worker's apps.ts), which loads the app at its first request and
// answers a method outside the app's own with the 405 below before anything is built from the
// request (appTable, which both adapters use). A third app is a contract module (its path,
// methods and bound), an edge module (the app), one line in MOUNTS and one line in each
// adapter's table of loaders.
import { DISCORD_MAX_BODY_BYTES } from '../apps/discord/commands.ts';
import { CACHE_ERROR, JSON_CONTENT_TYPE } from '../contract/headers.ts';
import { MCP_MAX_BODY_BYTES, MCP_METHODS } from '../apps/mcp/bounds.ts';
import { errorBody } from '../contract/messages.ts';
import type { RouteIndex } from '../contract/resolve.ts';
import { DISCORD_PATH, MCP_PATH } from '../contract/paths.ts';
import type { AppHandOff, Headers } from './decision.ts';
import { once } from './once.ts';

/** What an app is handed beside its request: the build's index, and the headers the core adds to its answers. */
export interface AppData {
  readonly index: RouteIndex;
  readonly headers: Headers;
}

/** An app of the edge: answers every request the core hands it at its path, in any runtime. */
export type App = (request: Request, data: AppData) => Promise<Response>;

export type AppName = 'mcp' | 'discord';

/** Where an app is mounted and what it accepts: what the core and the bridges know of it without loading it. */
export interface AppMount {
  readonly name: AppName;
  readonly path: string;
  /** The methods it answers, as its Allow header lists them (OPTIONS, a guarded app's preflight, is the core's). */
  readonly methods: string;
  /** The longest body it reads: a bridge reads no further, and hands over a longer one declared so, unread. */
  readonly maxBodyBytes: number;
  /** Behind the API's token and rate limit (/mcp), or its own credential, checked by the app (Discord's signature). */
  readonly guarded: boolean;
  /** Its answer to a method outside `methods`, made from the method's name alone. */
  notAllowed(method: string, headers: Headers): Response;
}

/** JSON-RPC's implementation-defined server error, which /mcp answers a 405 with (as the MCP SDK's transport does). */
const RPC_SERVER_ERROR = -32000;

const mcpNotAllowed = (method: string, headers: Headers): Response =>
  new Response(
    JSON.stringify({
      jsonrpc: '2.0',
      error: {
        code: RPC_SERVER_ERROR,
        message:
          `Method ${method} not allowed on ${MCP_PATH}: POST one JSON-RPC message. ` +
          'This server keeps no session and offers no event stream.',
      },
      id: null,
    }),
    { status: 405, headers: { ...headers, 'Content-Type': 'application/json', Allow: MCP_METHODS } },
  );

const DISCORD_METHODS = 'POST';

const discordNotAllowed = (method: string): Response =>
  new Response(errorBody(`Method ${method} not allowed: Discord POSTs interactions here.`), {
    status: 405,
    headers: { 'Content-Type': JSON_CONTENT_TYPE, 'Cache-Control': CACHE_ERROR, Allow: DISCORD_METHODS },
  });

/** Every app of the edge. */
export const MOUNTS: readonly AppMount[] = [
  {
    name: 'mcp',
    path: MCP_PATH,
    methods: MCP_METHODS,
    maxBodyBytes: MCP_MAX_BODY_BYTES,
    guarded: true,
    notAllowed: mcpNotAllowed,
  },
  {
    name: 'discord',
    path: DISCORD_PATH,
    methods: DISCORD_METHODS,
    maxBodyBytes: DISCORD_MAX_BODY_BYTES,
    guarded: false,
    notAllowed: discordNotAllowed,
  },
];

/** The app mounted at `pathname` among those `on` (its path itself only: below it is the site's). */
export function mountAt(pathname: string, on: ReadonlySet<AppName>): AppMount | undefined {
  for (const mount of MOUNTS) if (mount.path === pathname && on.has(mount.name)) return mount;
  return undefined;
}

/** The app mounted by `name`. */
export function mountOf(name: AppName): AppMount {
  const mount = MOUNTS.find((one) => one.name === name);
  if (!mount) throw new Error(`no app is mounted by the name ${name}`);
  return mount;
}

/** Whether `method` is one the app answers (in any letter case, as a Request normalises POST). */
export const allows = (mount: AppMount, method: string): boolean =>
  mount.methods.split(', ').includes(method.toUpperCase());

/** A feature whose setting is malformed, so its app is off: the 503 on its path (its message names the setting). */
export const appUnavailable = (message: string): Response =>
  new Response(errorBody(message), {
    status: 503,
    headers: { 'Content-Type': JSON_CONTENT_TYPE, 'Cache-Control': CACHE_ERROR, 'Access-Control-Allow-Origin': '*' },
  });

/** How to load each app a runtime serves: an app without a loader is off (its path is the site's). */
export type AppLoaders = Partial<Record<AppName, () => Promise<App>>>;

/** The apps of one runtime, each loaded at its first request. */
export interface AppTable {
  /** The apps the core hands requests to (those turned off by a malformed setting too: they answer the 503). */
  readonly on: ReadonlySet<AppName>;
  /**
   * What a request gets before anything is built from it: a method outside its app's own, the
   * app's 405; an app turned off by a malformed setting, the 503 naming it. Undefined: the app answers.
   */
  refusal(handOff: AppHandOff, method: string): Response | undefined;
  /** The app, loaded once while that succeeds (a failed load is tried again by the next request). */
  load(name: AppName): Promise<App>;
}

/** The table of the apps `loaders` names, and of those `disabled` turns off (each with the 503's message). */
export function appTable(loaders: AppLoaders, disabled: ReadonlyMap<AppName, string> = new Map()): AppTable {
  const loaded = new Map<AppName, () => Promise<App>>();
  for (const [name, load] of Object.entries(loaders) as [AppName, () => Promise<App>][]) loaded.set(name, once(load));
  return {
    on: new Set([...loaded.keys(), ...disabled.keys()]),
    refusal(handOff, method) {
      const off = disabled.get(handOff.app);
      if (off !== undefined) return appUnavailable(off);
      const mount = mountOf(handOff.app);
      return allows(mount, method) ? undefined : mount.notAllowed(method, handOff.headers);
    },
    load(name) {
      const load = loaded.get(name);
      if (!load) throw new Error(`the core handed a request to the app ${name}, which is off`);
      return load();
    },
  };
}
