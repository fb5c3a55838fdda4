// The Worker's table of the edge's apps (src/edge/apps.ts), each loaded by the first request for
// it, so an isolate that never serves an app never compiles or evaluates it (/mcp: the MCP SDK and
// its zod schemas). `npm run worker:build` bundles the Worker with esbuild's code splitting: each
// import() below becomes a module of its own, and what the apps share with each other and with
// the Worker's script (zod, the contract) a shared module, evaluated once an isolate.
import { type AppName, type AppTable, appTable } from '../edge/apps.ts';
import type { Feature, WorkerConfiguration } from './settings.ts';

/** The apps each feature turned off takes with it (the API's guarded apps go with it in worker.ts). */
const APPS_OF: Record<Feature, readonly AppName[]> = { api: [], discord: ['discord'], invocations: [] };

/** The 503's message of a feature turned off. */
export const featureOff = (feature: Feature, problem: string): string =>
  `This deployment's ${feature} feature is off: ${problem}`;

/** The apps of an isolate: /mcp, and the Discord app with its key (or, its key malformed, its 503). */
export function workerApps({ settings, disabled }: WorkerConfiguration): AppTable {
  const { discordPublicKey } = settings;
  const off = new Map<AppName, string>();
  for (const [feature, problem] of disabled)
    for (const app of APPS_OF[feature]) off.set(app, featureOff(feature, problem));
  return appTable(
    {
      mcp: async () => (await import('../apps/mcp/app.ts')).mcpApp,
      ...(discordPublicKey !== undefined && {
        discord: async () => (await import('../apps/discord/app.ts')).discordApp(discordPublicKey),
      }),
    },
    off,
  );
}
