// The Worker's apps: those of src/apps/mounts.ts, each loaded by the first request for it, so an
// isolate that never serves an app never compiles or evaluates it (/mcp: the MCP SDK and its
// zod schemas). `npm run worker:build` bundles the Worker with esbuild's code splitting: each
// app's loader (its mount.ts's import()) becomes a module of its own, and what the apps share
// with each other and with the Worker's script (zod, the contract) a shared module, evaluated
// once an isolate.
import type { AppSettings } from '../apps/mounts.ts';
import { type AppMount, type AppTable, appTable } from '../edge/apps.ts';
import type { Feature, WorkerConfiguration } from './settings.ts';

/** The 503's message of a feature turned off. */
export const featureOff = (feature: Feature, problem: string): string =>
  `This deployment's ${feature} feature is off: ${problem}`;

/**
 * The apps of an isolate, as its settings turn them on; an app whose variable is malformed (its
 * feature, by its name, turned off) answers its 503. The API's guarded apps go with it in worker.ts.
 */
export function workerApps(
  mounts: readonly AppMount<AppSettings>[],
  { settings, disabled }: WorkerConfiguration,
): AppTable {
  const off = new Map<string, string>();
  for (const [feature, problem] of disabled)
    if (mounts.some(({ name }) => name === feature)) off.set(feature, featureOff(feature, problem));
  return appTable(mounts, settings, off);
}
