// What the in-process benchmarks (bench:mcp, bench:discord) share: CPU per call of warm work,
// and a GET answered by the server's own code without a socket (the core decides it, the body
// store hands over its bytes) over the built dist/.
import { join } from 'node:path';
import { projectDir } from '../../src/cli/project-dir.ts';
import { createEdge, type EdgeRequest } from '../../src/edge/core.ts';
import { configuredTokens } from '../../src/edge/tokens.ts';
import { type BodyStore, loadBodyStore } from '../../src/server/body-store.ts';

/** CPU microseconds (user + system) per run of `work`, after as many runs to warm up. */
export async function cpuPerCall(calls: number, work: () => Promise<unknown>): Promise<number> {
  for (let run = 0; run < calls; run++) await work();
  const before = process.cpuUsage();
  for (let run = 0; run < calls; run++) await work();
  const { user, system } = process.cpuUsage(before);
  return (user + system) / calls;
}

/** The built dist/ in memory, and one GET of `target` with `token` answered as the server answers it. */
export async function inProcessGet(target: string, token: string) {
  const store: BodyStore = await loadBodyStore(join(projectDir, 'dist'));
  const tokens = await configuredTokens({ API_TOKENS: token });
  const core = createEdge({ index: store.index, tokenDigests: tokens.map(({ digest }) => digest) });
  const [path, query] = target.split('?');
  const request: EdgeRequest = {
    method: 'GET',
    pathname: path ?? '',
    query: query ?? '',
    header: (name) => (name === 'authorization' ? `Bearer ${token}` : null),
    // The API's: no app at its path.
    mount: undefined,
  };
  const get = async () => {
    const decision = await core(request);
    if (decision.type !== 'respond' || !decision.body || !('stored' in decision.body)) throw new Error('no body');
    return store.bytes(decision.body.stored, decision.encoding);
  };
  return { store, core, request, get };
}
