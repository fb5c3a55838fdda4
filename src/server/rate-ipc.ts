// The rate limit across the processes of WORKERS=N: the supervisor holds the one count
// (rate-counter.ts) and each serving process asks it over the cluster's IPC channel, so a
// token gets its limit per window across the whole server, not N times it. One message each
// way per counted request; with one serving process the count stays in that process.
//
// The supervisor must never stall serving: a serving process without an answer within
// COUNT_DEADLINE_MS (the supervisor stopped, or blocked writing to a paused terminal) counts
// its requests alone, under the same limit, and says so once, until the supervisor answers
// again. Counting alone rather than refusing (503) keeps the API up while each process still
// holds every token to the limit (docs/limits.md, "Rate limits", says why).
import cluster from 'node:cluster';
import { stderrLines } from './stderr.ts';
import type { RateLimit } from '../schema/environment.ts';
import { type KnownCount, localRateCounter, type RateCounter, type CountedBy } from './rate-counter.ts';

/** How long a counted request waits for the supervisor's count: far above its normal round trip. */
export const COUNT_DEADLINE_MS = 1_000;
/**
 * Counts a serving process may have asked and not had answered (late ones included); past it
 * a request is counted alone at once. Bounds the requests waiting and the IPC backlog while
 * the supervisor does not read; far above what a supervisor that answers leaves unanswered.
 */
export const MAX_COUNTS_IN_FLIGHT = 10_000;

/** What a serving process asks the supervisor: count this request. */
export interface CountRequest {
  type: 'treefarm:rate-hit';
  id: number;
  countedBy: CountedBy;
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
  cluster.on('message', (serving, message: unknown) => {
    if (!isCountRequest(message)) return;
    const answer: CountAnswer = {
      type: 'treefarm:rate-count',
      id: message.id,
      count: count(message.countedBy, message.key),
    };
    if (serving.isConnected()) serving.send(answer);
  });
}

/**
 * One line on stderr without waiting for it (stderr.ts: off the serving thread, bounded): the
 * terminal that stalled the supervisor may be the one this process writes to.
 */
const sayOnStderr = (line: string): unknown => stderrLines.say(line);

/** A count asked of the supervisor, its request still waiting for the answer. */
interface Asked {
  countedBy: CountedBy;
  key: string;
  resolve: (count: KnownCount) => void;
  deadline: NodeJS.Timeout;
}

/** A serving process's end of the IPC channel to the supervisor: `process` (a stand-in in tests). */
export interface SupervisorChannel {
  readonly connected: boolean;
  send?: (message: CountRequest) => unknown;
  on(event: 'message', listener: (message: unknown) => void): unknown;
  on(event: 'disconnect', listener: () => void): unknown;
}

/**
 * In a serving process under the supervisor: a counter that asks it, and counts alone (this
 * process's own count, under the same limit) while the supervisor does not answer in time,
 * or when the channel is gone (the supervisor is stopping, and this process with it).
 */
export function supervisorRateCounter(
  limit: RateLimit,
  { channel = process, say = sayOnStderr }: { channel?: SupervisorChannel; say?: (line: string) => void } = {},
): RateCounter {
  const ownCount = localRateCounter(limit);
  // By id; a late one stays (as null) until its answer comes, so the cap bounds the backlog too.
  const unanswered = new Map<number, Asked | null>();
  let nextId = 0;
  let alone = false;
  const name = `process ${process.pid}`;
  const countAlone = (id: number, asked: Asked) => {
    clearTimeout(asked.deadline);
    unanswered.set(id, null);
    asked.resolve(ownCount(asked.countedBy, asked.key));
  };
  const onDeadline = (id: number, asked: Asked) => {
    countAlone(id, asked);
    if (alone) return;
    alone = true;
    say(
      `${name}: the supervisor did not answer a rate count within ${COUNT_DEADLINE_MS / 1000} s: ` +
        "counting this process's requests alone (the same limit in each process) until it answers.",
    );
  };
  channel.on('message', (message: unknown) => {
    if (!isCountAnswer(message)) return;
    const asked = unanswered.get(message.id);
    unanswered.delete(message.id);
    if (alone) {
      alone = false;
      say(`${name}: the supervisor answers rate counts again: one count for all processes again.`);
    }
    if (!asked) return;
    clearTimeout(asked.deadline);
    asked.resolve(message.count);
  });
  channel.on('disconnect', () => {
    for (const [id, asked] of unanswered) if (asked) countAlone(id, asked);
    unanswered.clear();
  });
  return (countedBy, key) => {
    if (!channel.send || !channel.connected || alone || unanswered.size >= MAX_COUNTS_IN_FLIGHT)
      return ownCount(countedBy, key);
    const id = nextId++;
    return new Promise<KnownCount>((resolve) => {
      const asked: Asked = {
        countedBy,
        key,
        resolve,
        deadline: setTimeout(() => onDeadline(id, asked), COUNT_DEADLINE_MS),
      };
      unanswered.set(id, asked);
      channel.send?.({ type: 'treefarm:rate-hit', id, countedBy, key });
    });
  };
}
