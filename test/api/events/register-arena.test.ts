import t from 'tap';
import { BodyArena } from '../../../src/lib/body-arena.js';
import { createUser, startTestServer } from '../../helpers/server.js';

/**
 * A /register's body (tens of KB here, hundreds in a big realm) is written from the shard's
 * arena (lib/body-arena.ts) through Koa, as GET /messages pages are on their fast path. The
 * arena's slots are reused: many registers at once, more than the arena has slots, must each
 * get their own user's answer, and every slot must be free once the responses have closed.
 */
async function until(what: string, check: () => boolean, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

t.test('POST /register: through the arena, each answer its own user\'s', async (t) => {
  const ts = await startTestServer(t);
  const people = [{ ...ts.owner, name: 'owner' }];
  for (const name of ['Ann', 'Bob Ünïcödé', 'Cy']) people.push({ ...(await createUser(ts, `${name.split(' ')[0].toLowerCase()}@example.com`, name)), name });
  await ts.request('POST', '/users/me/subscriptions', { params: { subscriptions: JSON.stringify([{ name: 'owners only' }]), invite_only: true } });
  const viewed = BodyArena.viewed;
  const first = await ts.as(people[1])('POST', '/register', {});
  t.equal(first.status, 200, 'a register');
  t.equal(BodyArena.viewed - viewed, 1, 'its body came through the arena');

  const asked = Array.from({ length: 100 }, (_, i) => {
    const who = people[i % people.length];
    return { who, done: ts.as(who)('POST', '/register', {}) };
  });
  let own = 0;
  let leaks = 0;
  for (const { who, done } of asked) {
    const res = await done;
    if (res.status === 200 && res.body.user_id === who.userId && (who.name === 'owner' || res.body.full_name === who.name)) own++;
    const sawPrivate = JSON.stringify(res.body.subscriptions ?? []).includes('owners only') || JSON.stringify(res.body.never_subscribed ?? []).includes('owners only');
    if (sawPrivate !== (who.name === 'owner')) leaks++;
    await ts.as(who)('DELETE', '/events', { params: { queue_id: res.body.queue_id } });
  }
  t.equal(own, asked.length, `all ${asked.length} concurrent registers are their user's own`);
  t.equal(leaks, 0, 'the private channel shows to its subscriber only');
  await until('every slot to be free', () => BodyArena.taken() === 0);
  t.equal(BodyArena.taken(), 0, 'no slot stays taken once the responses have closed');
});
