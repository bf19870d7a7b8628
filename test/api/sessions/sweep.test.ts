import t from 'tap';
import { SWEEP_EVERY_MS, SWEEP_KIND, SWEEP_LIMIT } from '../../../src/api/sessions/sweep.js';
import { hashPassword } from '../../../src/lib/auth.js';
import { dispatch } from '../../../src/host/dispatch.js';
import { jobsOf } from '../../../src/shard/jobs.js';
import type { Shard } from '../../../src/shard/shard.js';
import { newSessionSecrets, putSession, type SessionRecord } from '../../../src/store/sessions.js';
import { inProcessShard } from '../../helpers/shard.js';

/**
 * The sweep of expired browser sessions, in-process on a fake clock (the job runner's `now` and
 * the wheel's time move together, as test/shard/jobs.test.ts drives them): a login through the
 * login form schedules the realm's sweep; the sweep deletes every expired session, anyone's,
 * keeps the live ones, comes back daily while sessions remain, and stops when none do.
 */
const DAY_S = SWEEP_EVERY_MS / 1000;

t.test('expired sessions are swept by a durable job', async (t) => {
  const { shard, realm, member } = await inProcessShard(t);
  let clock = Math.ceil(Date.now() / 1000) * 1000;
  const jobs = jobsOf(shard);
  jobs.now = () => clock;
  jobs.start();
  const advance = async (to: number) => {
    clock = to;
    shard.wheel.advance(to);
    await jobs.idle();
  };
  const key = `${SWEEP_KIND}:${realm.id}`;
  const rows = (s: Shard) => [...s.store.sessions.getRange({ start: [realm.id], end: [realm.id + 1] })].map(({ value }) => value as SessionRecord);

  const alice = await member('alice');
  const bob = await member('bob');
  // A password for Alice, and a login through the login form (the operation the page posts to).
  const batch0 = shard.batch();
  realm.users.get(alice.id)!.passwordHash = await hashPassword('alice-password-1');
  batch0.put(shard.store.users, [realm.id, alice.id], realm.users.get(alice.id));
  await batch0.commit();
  const login = await dispatch(shard, { kind: 'request', op: 'sessions.login', realmId: realm.id, params: { username: 'alice@example.com', password: 'alice-password-1' }, pathParams: {}, userAgent: 'test', remoteAddr: '127.0.0.1', browser: { write: true } });
  t.equal(login.status, 302, 'Alice logs in');
  const job = jobs.get(key);
  t.ok(job, 'the login scheduled the realm’s sweep');
  t.equal(job!.due, clock + SWEEP_EVERY_MS, 'a day on');

  // Bob's sessions: one that expires in an hour, one that has expired, and one live for a month.
  const nowS = () => Math.floor(clock / 1000);
  const batch = shard.batch();
  const add = (userId: number, expires: number) => putSession(shard, batch, realm.id, newSessionSecrets().secret, { userId, csrf: 'c', created: nowS() - 100, expires });
  add(bob.id, nowS() + 3600);
  add(bob.id, nowS() - 1);
  add(bob.id, nowS() + 30 * DAY_S);
  await batch.commit();
  t.equal(rows(shard).length, 4, 'four sessions in the store');

  await advance(clock + SWEEP_EVERY_MS - 1000);
  t.equal(rows(shard).length, 4, 'nothing swept before the day is out');
  await advance(clock + 1000);
  const left = rows(shard);
  t.equal(left.length, 2, 'the sweep deleted the two expired ones (one that expired meanwhile), not waiting for Bob to log in');
  t.ok(left.every((r) => r.expires > nowS()), 'the live ones stay');
  t.equal(jobs.get(key)?.due, clock + SWEEP_EVERY_MS, 'and it comes back a day later, sessions remaining');

  await advance(clock + 31 * SWEEP_EVERY_MS);
  t.same(rows(shard), [], 'a month on, every session has gone');
  t.equal(jobs.get(key), undefined, 'and with none left, the sweep stops until the next login');

  // A backlog larger than one run's share is cleared in several runs, seconds apart.
  const big = shard.batch();
  for (let i = 0; i < SWEEP_LIMIT + 10; i++) putSession(shard, big, realm.id, newSessionSecrets().secret, { userId: bob.id, csrf: 'c', created: nowS() - 100, expires: nowS() - 1 });
  jobs.schedule(big, { key, kind: SWEEP_KIND, realmId: realm.id, due: clock + 1000, data: null });
  await big.commit();
  await advance(clock + 1000);
  t.equal(rows(shard).length, 10, `one run deletes ${SWEEP_LIMIT}`);
  t.equal(jobs.get(key)?.due, clock + 1000, 'and comes back a second later for the rest');
  await advance(clock + 1000);
  t.same(rows(shard), [], 'which the next run deletes');
});
