// The build being served and what is made from it: a generation (its bodies, its core, its
// static site), replaced whole by a reload so no request sees a mix of two builds.
import type { RateLimit } from '../schema/environment.ts';
import { createEdge, type EdgeCore, type EdgeRateLimit } from '../edge/core.ts';
import { type CountNow, rememberDecisions, type RememberedEdge } from '../edge/remembered.ts';
import type { ConfiguredToken } from '../edge/tokens.ts';
import type { AppBridge } from './app-bridge.ts';
import { loadBodyStore, type BodyStore } from './body-store.ts';
import { decisionSender, type SendDecision } from './node-adapter.ts';
import { localRateCounter, type RateCounter } from './rate-counter.ts';
import { staticSite, type StaticSite } from './static-site.ts';

/** One build being served: its API bodies, the core over its manifest, its static site. */
export interface Generation {
  store: BodyStore;
  edge: RememberedEdge;
  /** The name of the token an Authorization value passed with (the core's), for the log. */
  tokenName: (authorization: string | null) => string | null;
  send: SendDecision;
  serveStatic: StaticSite;
  /** The edge's apps (/mcp, and the Discord app when it is on). */
  apps: AppBridge;
}

/** The rate limit the core enforces, and the same count when it answers at once (this process's own). */
export interface Counting {
  rateLimit: EdgeRateLimit;
  countNow?: CountNow;
}

export function counting(limit: RateLimit, counter: RateCounter | undefined, clock?: () => number): Counting {
  if (counter) return { rateLimit: { limit, count: counter } };
  const count = localRateCounter(limit, clock);
  return { rateLimit: { limit, count }, countNow: count };
}

export async function loadGeneration(
  distDir: string,
  tokens: readonly ConfiguredToken[],
  limited: Counting | undefined,
  apps: AppBridge,
): Promise<Generation> {
  const store = await loadBodyStore(distDir);
  const core = createEdge({
    index: store.index,
    tokenDigests: tokens.map(({ digest }) => digest),
    tokenNames: tokens.map(({ name }) => name),
    rateLimit: limited?.rateLimit,
  });
  return {
    store,
    // A count of this process's own lets remembered answers be counted without the core.
    edge: rememberDecisions(core, limited?.countNow),
    tokenName: lastTokenName(core),
    send: decisionSender(store),
    serveStatic: await staticSite(distDir),
    apps,
  };
}

/**
 * The core's token name of an Authorization value, kept for the value last asked about: a
 * client's requests repeat it, and comparing it costs less than the core's lookup by its hash.
 */
function lastTokenName(core: EdgeCore): (authorization: string | null) => string | null {
  let last: string | null | undefined;
  let name: string | null = null;
  return (authorization) => {
    if (authorization !== last) {
      last = authorization;
      name = core.tokenName(authorization);
    }
    return name;
  };
}
