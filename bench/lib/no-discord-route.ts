// The Discord app of the Worker without its apps (bench/lib/worker-startup.ts), built in place of
// src/apps/discord/app.ts: the Worker as it was before the Discord app.
import type { App } from '../../src/edge/apps.ts';

export async function discordApp(): Promise<App> {
  return async () => new Response(null, { status: 404 });
}
