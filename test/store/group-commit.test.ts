import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { open, type RootDatabase } from 'lmdb';
import { GroupCommit } from '../../src/store/group-commit.js';
import { inProcessShard } from '../helpers/shard.js';

/**
 * The group commit (store/group-commit.ts): the commits one task reaches share one transactionSync
 * on the calling thread; none resolves before the transaction that holds it has returned (and
 * with it, committed and synced), and a transaction that fails fails only the commits whose
 * writes failed, not the others of its group.
 */

type Sync = (fn: () => unknown, flags?: number) => unknown;

/** Counts transactionSync calls and records, in one log with the commits' resolutions, when each returned. */
function watch(env: RootDatabase, log: string[]): { calls: () => number } {
  const target = env as unknown as { transactionSync: Sync };
  const real = target.transactionSync.bind(env);
  let calls = 0;
  target.transactionSync = (fn, flags) => {
    const n = ++calls;
    try {
      const result = real(fn, flags);
      log.push(`returned ${n}`);
      return result;
    } catch (err) {
      log.push(`threw ${n}`);
      throw err;
    }
  };
  return { calls: () => calls };
}

function tempEnv(t: Test): RootDatabase {
  const dir = mkdtempSync(join(tmpdir(), 'stoa-group-commit-'));
  const env = open({ path: dir, maxDbs: 4 });
  t.teardown(async () => {
    await env.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return env;
}

t.test('the commits of one task share one transaction, and each resolves only once it has returned', async (t) => {
  const env = tempEnv(t);
  const db = env.openDB({ name: 'rows' });
  const log: string[] = [];
  const { calls } = watch(env, log);
  const group = new GroupCommit(env);
  const seen: (string | undefined)[] = [];
  const commits = [1, 2, 3].map((i) =>
    group.commit(() => void db.put(`k${i}`, `v${i}`)).then(() => {
      log.push(`resolved ${i}`);
      // A read transaction begun now sees only what is committed.
      seen.push(db.get(`k${i}`) as string | undefined);
    }),
  );
  t.equal(calls(), 0, 'nothing is written before the task has run its microtasks');
  await Promise.all(commits);
  t.equal(calls(), 1, 'three commits, one transaction');
  t.same(log, ['returned 1', 'resolved 1', 'resolved 2', 'resolved 3'], 'no commit resolves before its transaction has returned');
  t.same(seen, ['v1', 'v2', 'v3'], 'each row is committed when its commit resolves');

  // A commit made as another resolves goes in the next transaction.
  log.length = 0;
  await group.commit(() => void db.put('k4', 'v4')).then(() => group.commit(() => void db.put('k5', 'v5')));
  t.equal(calls(), 3, 'a commit reached after a resolution is its own transaction');
  t.same(log, ['returned 2', 'returned 3'], 'in order');
  t.equal(db.get('k5'), 'v5');
});

t.test('a failed group fails only the commits whose writes fail; the others commit', async (t) => {
  const env = tempEnv(t);
  const db = env.openDB({ name: 'rows' });
  const log: string[] = [];
  const { calls } = watch(env, log);
  const group = new GroupCommit(env);
  const bad = new Error('this value cannot be written');
  const outcomes = await Promise.allSettled([
    group.commit(() => void db.put('a', 1)),
    group.commit(() => {
      db.put('b', 2);
      throw bad;
    }),
    group.commit(() => void db.put('c', 3)),
  ]);
  t.same(outcomes.map((o) => o.status), ['fulfilled', 'rejected', 'fulfilled'], 'only the failing commit is refused');
  t.equal((outcomes[1] as PromiseRejectedResult).reason, bad, 'with its own error');
  t.equal(db.get('a'), 1, 'the first commit of the group is stored');
  t.equal(db.get('b'), undefined, 'nothing of the failed commit is stored, not even the writes it made before failing');
  t.equal(db.get('c'), 3, 'the last commit of the group is stored');
  t.same(log, ['threw 1', 'returned 2', 'threw 3', 'returned 4'], 'the group was aborted and each commit written again on its own');
  t.equal(calls(), 4);

  await group.commit(() => void db.put('d', 4));
  t.equal(db.get('d'), 4, 'commits go on after a failure');
});

t.test('a shard: a send is answered after its commit; a failed one fails alone among concurrent sends', async (t) => {
  const s = await inProcessShard(t);
  const member = await s.member('member');
  const queue = (await s.call(member, 'events.register', { event_types: ['message'] })).body.queue_id as string;
  const env = s.shard.store.env;
  const log: string[] = [];
  const { calls } = watch(env, log);
  const send = (content: string) =>
    s.call(s.owner, 'messages.send', { type: 'stream', to: 'general', topic: 'group', content }).then((res) => {
      // The answer's message is in the store (committed) when the answer is made.
      const stored = res.status === 200 ? s.shard.store.messages.get(res.body.id) : undefined;
      return { ...res, stored, transactionsDone: log.filter((l) => l.startsWith('returned')).length };
    });

  const before = calls();
  const ok = await Promise.all([send('one'), send('two'), send('three')]);
  t.same(ok.map((r) => r.status), [200, 200, 200], 'three sends');
  t.ok(ok.every((r) => r.stored !== undefined && r.transactionsDone > 0), 'each answered only once its message was committed');
  t.ok(calls() - before < 3, `three concurrent sends took fewer transactions than sends (${calls() - before})`);

  // A send whose rows cannot be written, among two that can: lmdb-js aborts the whole group.
  const messages = s.shard.store.messages as unknown as { put: (key: unknown, value: unknown) => unknown };
  const put = messages.put.bind(messages);
  messages.put = (key, value) => {
    if (JSON.stringify(value).includes('poison')) throw new Error('No space left on device');
    return put(key, value);
  };
  const mixed = await Promise.all([send('four'), send('poison'), send('five')]);
  messages.put = put;
  t.same(mixed.map((r) => r.status), [200, 503, 200], 'only the send whose commit failed is refused');
  t.ok(mixed[0].stored && mixed[2].stored, 'the others are stored when answered');
  await s.shard.recovering;

  const list = await s.call(member, 'messages.list', { anchor: 'newest', num_before: 10, num_after: 0, narrow: [{ operator: 'topic', operand: 'group' }] });
  t.same(list.body.messages.map((m: { content: string }) => m.content), ['<p>one</p>', '<p>two</p>', '<p>three</p>', '<p>four</p>', '<p>five</p>'], 'the history holds the committed sends, not the failed one');
  const polled = await s.call(member, 'events.get', { queue_id: queue, last_event_id: -1, dont_block: true });
  t.same(polled.body.events.map((e: { message: { content: string } }) => e.message.content), ['one', 'two', 'three', 'four', 'five'], 'the queue got the committed sends only, in order');
});
