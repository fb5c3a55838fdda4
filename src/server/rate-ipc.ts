// The rate limit across the processes of WORKERS=N: the supervisor holds the one count
// (rate-counter.ts) and each serving process asks it over the cluster's IPC channel, so a
// token gets its limit per window across the whole server, not N times it. One message each
// way per counted request; with one serving process the count stays in that process.
import cluster from 'node:cluster';
import type { RateLimit } from '../schema/environment.ts';
import { type KnownCount, localRateCounter, type RateCounter, type RateScope } from './rate-counter.ts';

interface CountRequest {
  type: 'treefarm:rate-hit';
  id: number;
  scope: RateScope;
  key: string;
}
interface CountAnswer {
  type: 'treefarm:rate-count';
  id: number;
  count: KnownCount;
}

const isCountRequest = (message: unknown): message is CountRequest =>
  (message as CountRequest | null)?.type === 'treefarm:rate-hit';
const isCountAnswer = (message: unknown): message is CountAnswer =>
  (message as CountAnswer | null)?.type === 'treefarm:rate-count';

/** In the supervisor: answers every serving process's count requests from one count. */
export function countForServingProcesses(limit: RateLimit): void {
  const count = localRateCounter(limit);
  cluster.on('message', (worker, message: unknown) => {
    if (!isCountRequest(message)) return;
    const answer: CountAnswer = {
      type: 'treefarm:rate-count',
      id: message.id,
      count: count(message.scope, message.key),
    };
    if (worker.isConnected()) worker.send(answer);
  });
}

/**
 * In a serving process under the supervisor: a counter that asks it. Should the channel be
 * gone (the supervisor is stopping, and this process with it), requests are let through
 * rather than left waiting.
 */
export function supervisorRateCounter(): RateCounter {
  const waiting = new Map<number, (count: KnownCount) => void>();
  let nextId = 0;
  const letThrough = (): KnownCount => ({ allowed: true, remaining: 0, resetSeconds: 1 });
  process.on('message', (message: unknown) => {
    if (!isCountAnswer(message)) return;
    waiting.get(message.id)?.(message.count);
    waiting.delete(message.id);
  });
  process.on('disconnect', () => {
    for (const resolve of waiting.values()) resolve(letThrough());
    waiting.clear();
  });
  return (scope, key) =>
    new Promise<KnownCount>((resolve) => {
      if (!process.send || !process.connected) return resolve(letThrough());
      const id = nextId++;
      waiting.set(id, resolve);
      const request: CountRequest = { type: 'treefarm:rate-hit', id, scope, key };
      process.send(request);
    });
}
