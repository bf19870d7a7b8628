import t from 'tap';
import { ROLE, type Role, type UserRecord } from '../../../src/model/types.js';
import type { ShardEvent } from '../../../src/shard/events.js';
import { checkEvent } from '../../helpers/openapi.js';
import { inProcessShard } from '../../helpers/shard.js';

/**
 * The events of channel and subscription changes. No endpoint delivers events yet, so the shard
 * runs in this process and the test listens on its event bus; requests go through the same
 * dispatcher (authentication, parameters, handler) the HTTP front end uses. Every event is
 * checked against the reference's GET /events schema.
 */
t.test('channel and subscription events', async (t) => {
  const h = await inProcessShard(t, 'Events');
  const { shard, realm, owner } = h;
  const make = (name: string, role?: Role) => h.member(name, role);
  const admin = await make('admin', ROLE.administrator);
  const hamlet = await make('hamlet', ROLE.member);
  const othello = await make('othello', ROLE.member);
  const polonius = await make('polonius', ROLE.guest);

  let seen: { event: ShardEvent; userIds: number[] }[] = [];
  shard.events.subscribe((realmId, event, userIds) => {
    // Only this events: user creation has its own (realm_user add).
    if (realmId === 1 && (event.type === 'stream' || event.type === 'subscription')) seen.push({ event, userIds: [...userIds].sort((a, b) => a - b) });
  });
  const call = async (user: UserRecord, op: string, params: Record<string, unknown>) => {
    seen = [];
    return h.call(user, op, params);
  };
  const ids = (...users: UserRecord[]) => users.map((u) => u.id).sort((a, b) => a - b);
  const summary = () => seen.map(({ event, userIds }) => ({ kind: `${event.type}/${event.op}`, to: userIds }));

  t.test('a new user is announced to the default channel\'s subscribers only', async (t) => {
    seen = [];
    const newbie = await make('newbie', ROLE.member);
    t.same(summary(), [{ kind: 'subscription/peer_add', to: ids(owner, admin, hamlet, othello, polonius) }], 'peer_add to the others in general; the new user has no queue yet');
    t.same(seen[0].event.user_ids, [newbie.id], 'naming the new user');
  });

  t.test('creating a public channel', async (t) => {
    const res = await call(hamlet, 'subscriptions.add', { subscriptions: [{ name: 'Verona' }] });
    t.equal(res.status, 200, 'created');
    const newbie = realm.userByEmail('newbie@example.com')!;
    t.same(summary(), [
      { kind: 'stream/create', to: ids(owner, admin, hamlet, othello, newbie) },
      { kind: 'subscription/add', to: ids(hamlet) },
      { kind: 'subscription/peer_add', to: ids(owner, admin, othello, newbie) },
    ], 'stream create to every non-guest, add to the subscriber, peer_add to the other non-guests');
    const add = seen[1].event as unknown as { subscriptions: { name: string; subscribers: number[]; color: string }[] };
    t.equal(add.subscriptions[0].name, 'Verona', 'the subscription');
    t.same(add.subscriptions[0].subscribers, ids(hamlet), 'with its subscribers');
    for (const { event } of seen) t.doesNotThrow(() => checkEvent(event), `${event.type}/${event.op} matches the reference`);
  });

  t.test('creating a private channel', async (t) => {
    await call(hamlet, 'subscriptions.add', { subscriptions: [{ name: 'secret' }], invite_only: true });
    t.same(summary(), [
      { kind: 'stream/create', to: ids(owner, admin, hamlet) },
      { kind: 'subscription/add', to: ids(hamlet) },
      { kind: 'subscription/peer_add', to: ids(owner, admin) },
    ], 'only administrators and the creator learn of it');
    for (const { event } of seen) t.doesNotThrow(() => checkEvent(event), `${event.type}/${event.op} matches the reference`);
  });

  t.test('adding a member to a private channel', async (t) => {
    await call(hamlet, 'subscriptions.add', { subscriptions: [{ name: 'secret' }], principals: [othello.id] });
    t.same(summary(), [
      { kind: 'stream/create', to: ids(othello) },
      { kind: 'subscription/add', to: ids(othello) },
      { kind: 'subscription/peer_add', to: ids(owner, admin, hamlet) },
    ], 'the new subscriber first learns the channel exists');
    t.same(seen[2].event.user_ids, [othello.id], 'peer_add names othello');
  });

  t.test('subscribing a guest to a public channel', async (t) => {
    await call(admin, 'subscriptions.add', { subscriptions: [{ name: 'Verona' }], principals: [polonius.id] });
    t.same(summary().map((s) => s.kind), ['stream/create', 'subscription/add', 'subscription/peer_add'], 'create, add, peer_add');
    t.same(seen[0].userIds, ids(polonius), 'the guest gets the channel');
    t.notOk(seen[2].userIds.includes(polonius.id), 'but not its own peer_add');
  });

  t.test('leaving a private channel', async (t) => {
    await call(othello, 'subscriptions.remove', { subscriptions: ['secret'] });
    t.same(summary(), [
      { kind: 'subscription/remove', to: ids(othello) },
      { kind: 'stream/delete', to: ids(othello) },
      { kind: 'subscription/peer_remove', to: ids(owner, admin, hamlet) },
    ], 'the leaver loses sight of the channel; the others who can see it are told');
    const secret = realm.streamByName('secret')!;
    t.same(seen[0].event.subscriptions, [{ name: 'secret', stream_id: secret.id }], 'remove names the channel');
    t.same(seen[1].event.stream_ids, [secret.id], 'delete names the channel');
    for (const { event } of seen) t.doesNotThrow(() => checkEvent(event), `${event.type}/${event.op} matches the reference`);
  });

  t.test('removing a guest from a public channel', async (t) => {
    await call(admin, 'subscriptions.remove', { subscriptions: ['Verona'], principals: [polonius.id] });
    t.same(summary().map((s) => s.kind), ['subscription/remove', 'stream/delete', 'subscription/peer_remove'], 'the guest loses sight of it');
  });

  t.test('leaving a public channel', async (t) => {
    await call(hamlet, 'subscriptions.remove', { subscriptions: ['Verona'] });
    t.same(summary().map((s) => s.kind), ['subscription/remove', 'subscription/peer_remove'], 'a member still sees a public channel: no delete');
  });

  t.test('a failed request emits nothing', async (t) => {
    const res = await call(othello, 'subscriptions.add', { subscriptions: [{ name: 'secret' }] });
    t.equal(res.status, 400, 'refused');
    t.same(seen, [], 'no events');
  });
});
