// A serving process's rate count under WORKERS>1 (src/server/rate-ipc.ts) when the supervisor
// does not answer: the deadline, the cap on counts unanswered and late answers, against a
// stand-in for the IPC channel and a fake clock. processes.test.ts stops a real supervisor.
import { EventEmitter } from 'node:events';
import { afterEach, beforeEach, expect, test, vi } from 'vitest';
import type { KnownCount } from '../../src/server/rate-counter.ts';
import {
  COUNT_DEADLINE_MS,
  type CountRequest,
  MAX_COUNTS_IN_FLIGHT,
  type SupervisorChannel,
  supervisorRateCounter,
} from '../../src/server/rate-ipc.ts';

const LIMIT = { requests: 2, seconds: 60 } as const;

/** The channel's stand-in: what was sent, and the supervisor's answers and disconnect on demand. */
function standIn() {
  const sent: CountRequest[] = [];
  const channel = Object.assign(new EventEmitter(), {
    connected: true,
    send: (message: CountRequest) => sent.push(message),
  }) satisfies SupervisorChannel;
  const answer = (id: number, count: KnownCount) => channel.emit('message', { type: 'treefarm:rate-count', id, count });
  return { channel, sent, answer, disconnect: () => channel.emit('disconnect') };
}

const FROM_SUPERVISOR: KnownCount = { allowed: true, remaining: 41, resetSeconds: 7 };

let lines: string[];
beforeEach(() => {
  lines = [];
  vi.useFakeTimers();
  // Well inside a 60 s window, so the process's own count stays in one.
  vi.setSystemTime(new Date('2026-01-01T00:00:05Z'));
});
afterEach(() => vi.useRealTimers());

const counter = (channel: SupervisorChannel) =>
  supervisorRateCounter(LIMIT, { channel, say: (line) => lines.push(line) });

test('an answer within the deadline is the count', async () => {
  const { channel, sent, answer } = standIn();
  const counted = counter(channel)('token', 'digest');
  expect(sent).toEqual([{ type: 'treefarm:rate-hit', id: 0, countedBy: 'token', key: 'digest' }]);
  answer(0, FROM_SUPERVISOR);
  expect(await counted).toEqual(FROM_SUPERVISOR);
  expect(lines).toEqual([]);
});

test('no answer within 1 s: the process counts alone under the same limit, says so once, asks no more', async () => {
  const { channel, sent } = standIn();
  const count = counter(channel);
  let settled = false;
  const first = Promise.resolve(count('token', 'digest')).then((known) => {
    settled = true;
    return known;
  });
  await vi.advanceTimersByTimeAsync(COUNT_DEADLINE_MS - 1);
  expect(settled).toBe(false);
  await vi.advanceTimersByTimeAsync(1);
  expect(await first).toEqual({ allowed: true, remaining: 1, resetSeconds: 54 });
  // Alone now: at once, without a message, and the limit holds.
  expect(count('token', 'digest')).toEqual({ allowed: true, remaining: 0, resetSeconds: 54 });
  expect(count('token', 'digest')).toEqual({ allowed: false, remaining: 0, resetSeconds: 54 });
  expect(sent).toHaveLength(1);
  expect(lines).toEqual([
    `process ${process.pid}: the supervisor did not answer a rate count within 1 s: ` +
      "counting this process's requests alone (the same limit in each process) until it answers.",
  ]);
});

test('a late answer is dropped (its request was answered), and the supervisor counts again, said once', async () => {
  const { channel, sent, answer } = standIn();
  const count = counter(channel);
  const first = count('token', 'digest');
  await vi.advanceTimersByTimeAsync(COUNT_DEADLINE_MS);
  expect(await first).toEqual({ allowed: true, remaining: 1, resetSeconds: 54 });
  answer(0, FROM_SUPERVISOR);
  expect(lines[1]).toBe(
    `process ${process.pid}: the supervisor answers rate counts again: one count for all processes again.`,
  );
  const next = count('token', 'digest');
  expect(sent.at(-1)).toMatchObject({ id: 1 });
  answer(1, FROM_SUPERVISOR);
  expect(await next).toEqual(FROM_SUPERVISOR);
  expect(lines).toHaveLength(2);
});

test('past 10,000 counts unanswered a request is counted alone at once, without a message', async () => {
  const { channel, sent } = standIn();
  const count = counter(channel);
  for (let request = 0; request < MAX_COUNTS_IN_FLIGHT; request++) void count('address', `198.51.100.${request}`);
  expect(sent).toHaveLength(MAX_COUNTS_IN_FLIGHT);
  expect(count('token', 'digest')).toEqual({ allowed: true, remaining: 1, resetSeconds: 55 });
  expect(sent).toHaveLength(MAX_COUNTS_IN_FLIGHT);
});

test('late answers free their places: after 10,000 past the deadline are answered, the next is asked', async () => {
  const { channel, sent, answer } = standIn();
  const count = counter(channel);
  for (let request = 0; request < MAX_COUNTS_IN_FLIGHT; request++) void count('address', `198.51.100.${request}`);
  await vi.advanceTimersByTimeAsync(COUNT_DEADLINE_MS);
  for (const { id } of sent) answer(id, FROM_SUPERVISOR);
  const next = count('token', 'digest');
  expect(sent).toHaveLength(MAX_COUNTS_IN_FLIGHT + 1);
  answer(MAX_COUNTS_IN_FLIGHT, FROM_SUPERVISOR);
  expect(await next).toEqual(FROM_SUPERVISOR);
});

test('a channel that goes away: the counts waiting on it are counted alone at once', async () => {
  const { channel, disconnect } = standIn();
  const count = counter(channel);
  const waiting = count('token', 'digest');
  disconnect();
  expect(await waiting).toEqual({ allowed: true, remaining: 1, resetSeconds: 55 });
  expect(lines).toEqual([]);
});
