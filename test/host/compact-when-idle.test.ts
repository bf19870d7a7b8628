import type { IncomingMessage } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { getHeapSpaceStatistics } from 'node:v8';
import t from 'tap';
import { compactWhenIdle, RequestActivity } from '../../src/host/compact-when-idle.js';
import type { ShardPool } from '../../src/host/pool.js';
import { compactHeap } from '../../src/lib/compact-heap.js';
import { startTestServer } from '../helpers/server.js';

/**
 * The idle server's heaps (host/compact-when-idle.ts): once idle after its start, every thread
 * hands back the young generation the start grew. Sizes come from V8's own statistics, which
 * the compaction reports per thread.
 */

const newSpaceMb = () => getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')!.space_size / 1048576;

t.test('a compaction shrinks a young generation that surviving allocations grew', async (t) => {
  // Objects that survive scavenges make V8 grow the semi-spaces, as a start's loading does.
  let kept: { i: number; s: string }[] = [];
  for (let i = 0; i < 400_000; i++) kept.push({ i, s: `x${i}` });
  const grown = newSpaceMb();
  t.ok(grown >= 8, `the young generation grew (${grown} MB of room)`);
  t.equal(kept.length, 400_000);
  kept = [];
  const { beforeMb, afterMb } = await compactHeap();
  t.ok(afterMb < beforeMb, `resident young generation ${beforeMb} -> ${afterMb} MB`);
  t.ok(newSpaceMb() <= 2, `room after the compaction: ${newSpaceMb()} MB`);
});

t.test('an idle server compacts each thread once, and serves afterwards', async (t) => {
  const ts = await startTestServer(t);
  t.teardown(() => ts.close());
  const threads = await ts.server.compaction;
  t.ok(threads, 'the compaction ran');
  t.equal(threads![0].thread, 'main', 'the main thread first');
  t.equal(new Set(threads!.map((th) => th.thread)).size, threads!.length, 'each thread once');
  t.ok(threads!.some((th) => th.thread.startsWith('shard ')), 'a shard thread took part');
  for (const th of threads!) t.ok(th.afterMb <= Math.max(th.beforeMb, 2), `${th.thread}: ${th.beforeMb} -> ${th.afterMb} MB`);
  const main = threads!.find((th) => th.thread === 'main')!;
  t.ok(main.afterMb <= 2, `the main thread's young generation is back to its first size (${main.afterMb} MB)`);
  // Still serving: a message sent and read back after the compaction.
  const sent = await ts.request('POST', '/messages', { params: { type: 'direct', to: JSON.stringify([ts.owner.email]), content: 'after the compaction' } });
  t.equal(sent.status, 200);
  const got = await ts.request('GET', `/messages/${(sent.body as { id: number }).id}`);
  t.equal((got.body as { message: { content: string } }).message.content, '<p>after the compaction</p>');
});

t.test('a server stopped before it was idle reports no compaction', async (t) => {
  const ts = await startTestServer(t);
  const compaction = ts.server.compaction;
  await ts.close();
  t.equal(await compaction, null);
});

/** A pool with no shard started: the watch compacts this (the test's) thread alone. */
const noShards = { started: () => [] } as unknown as ShardPool;
const request = (method: string, url: string) => ({ method, url }) as IncomingMessage;

/**
 * A watch's requests and stop signal, stopped with the test. The watch's timer does not hold the
 * process (a server's does not wait for it): the test does.
 */
function watched(t: { teardown(fn: () => void): void }): { requests: RequestActivity; signal: AbortSignal } {
  const stop = new AbortController();
  const timer = setInterval(() => undefined, 1000);
  t.teardown(() => {
    stop.abort();
    clearInterval(timer);
  });
  return { requests: new RequestActivity(), signal: stop.signal };
}

t.test('a request in flight holds the compaction off until it has ended', async (t) => {
  const { requests, signal } = watched(t);
  // A client waiting on an answer, as P7b's registers right after a restart (one at a time).
  const waits = requests.begin(request('POST', '/api/v1/register'));
  let compacted = false;
  const compaction = compactWhenIdle(noShards, signal, requests).then((threads) => ((compacted = true), threads));
  await sleep(2000); // four of the watch's half-seconds
  t.equal(compacted, false, 'no compaction while the request is in flight');
  requests.end(waits);
  const threads = await compaction;
  t.same(threads?.map((th) => th.thread), ['main'], 'compacted once the request had ended');
});

t.test('parked long-polls do not hold the compaction off', async (t) => {
  const { requests, signal } = watched(t);
  const waits = requests.begin(request('GET', '/api/v1/events?queue_id=1&last_event_id=-1'));
  t.equal(waits, false, 'a GET /events is not waited on');
  t.equal(requests.waiting, 0);
  const threads = await compactWhenIdle(noShards, signal, requests);
  t.same(threads?.map((th) => th.thread), ['main'], 'compacted with the poll still parked');
  requests.end(waits);
  t.equal(requests.waiting, 0);
});

t.test('the storage check after start begins once the server is idle, after the compaction', async (t) => {
  const ts = await startTestServer(t);
  t.teardown(() => ts.close());
  const order: string[] = [];
  const compaction = ts.server.compaction.then(() => order.push('compaction'));
  const problems = await ts.server.storeCheck.then((n) => (order.push('check'), n));
  await compaction;
  t.same(order, ['compaction', 'check'], 'the check waited for the idle moment');
  t.equal(problems, 0, 'every table read whole');
});

t.test('a server stopped before it was idle runs no storage check', async (t) => {
  const ts = await startTestServer(t);
  const check = ts.server.storeCheck;
  await ts.close();
  t.equal(await check, 0);
});
