// The apps of the edge: this table is their only list. The Node server's bridge
// (src/server/app-bridge.ts), the Worker's routes and features (src/worker/), the R2 mode's
// routes (src/cloudflare/r2-run.ts), the metrics' answer kinds and statuses (src/server/metrics.ts)
// and the settings every runtime reads are made from it. A third app is a folder of src/apps/ (its
// mount.ts: path, methods, bound, guard, 405, statuses and loader) and one line here
// (docs/architecture.md, "The edge's apps").
import type { AppMount } from '../edge/apps.ts';
import type { ValuesOf } from '../schema/environment.ts';
import { discordMount } from './discord/mount.ts';
import { mcpMount } from './mcp/mount.ts';

/** Every app of the edge, mounted in both runtimes. */
export const MOUNTS = [mcpMount, discordMount] as const satisfies readonly AppMount<AppSettings>[];

/** The variables of every app's settings, which the Node server and the Worker read beside their own. */
export const appVariables = { ...mcpMount.variables, ...discordMount.variables };

/** What the runtimes' settings tell the apps (each app's loader reads its own). */
export type AppSettings = Partial<ValuesOf<typeof appVariables>>;

/** An app's name, as the answer kinds and the Worker's features name it. */
export type AppName = (typeof MOUNTS)[number]['name'];

/** The names of an app's variables: a Worker turns the app off when one is malformed. */
export const variablesOf = (mount: AppMount<never>): readonly (keyof typeof appVariables)[] =>
  Object.keys(mount.variables) as (keyof typeof appVariables)[];
