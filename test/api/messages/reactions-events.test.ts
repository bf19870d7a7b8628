import t from 'tap';
import { ROLE, type Role, type UserRecord } from '../../../src/model/types.js';
import type { ShardEvent } from '../../../src/shard/events.js';
import { checkEvent } from '../../helpers/openapi.js';
import { inProcessShard } from '../../helpers/shard.js';

/**
 * The `reaction` events and who gets them. The shard runs in this process and the test listens
 * on its event bus; requests go through the dispatcher the HTTP front end uses. Guests need it
 * too: no endpoint makes one.
 */
t.test('reaction events', async (t) => {
  const h = await inProcessShard(t, 'Reactions');
  const { shard, owner } = h;
  const make = (name: string, role?: Role) => h.member(name, role);
  const hamlet = await make('hamlet', ROLE.member);
  const othello = await make('othello', ROLE.member);
  const polonius = await make('polonius', ROLE.guest);
  const outsider = await make('outsider', ROLE.member);

  let seen: { event: ShardEvent; userIds: number[] }[] = [];
  shard.events.subscribe((realmId, event, userIds) => {
    if (realmId === 1 && event.type === 'reaction') seen.push({ event, userIds: [...userIds].sort((a, b) => a - b) });
  });
  const call = async (user: UserRecord, op: string, params: Record<string, unknown>) => {
    seen = [];
    return h.call(user, op, params);
  };
  const ids = (...users: UserRecord[]) => users.map((u) => u.id).sort((a, b) => a - b);
  const send = async (user: UserRecord, params: Record<string, unknown>) => (await call(user, 'messages.send', params)).body.id as number;
  const react = (user: UserRecord, id: number, emoji = 'tada') => call(user, 'messages.addReaction', { message_id: id, emoji_name: emoji });

  await call(outsider, 'subscriptions.remove', { subscriptions: ['general'] });
  const general = await send(hamlet, { type: 'stream', to: 'general', topic: 'news', content: 'hi all' });

  t.test('reaction add: the reference shape, to the channel\'s subscribers', async (t) => {
    const res = await react(othello, general);
    t.equal(res.status, 200, 'added');
    t.equal(seen.length, 1, 'one event');
    const { event, userIds } = seen[0];
    t.same(event, {
      type: 'reaction',
      op: 'add',
      user_id: othello.id,
      user: { user_id: othello.id, email: othello.email, full_name: othello.fullName },
      message_id: general,
      emoji_name: 'tada',
      emoji_code: '1f389',
      reaction_type: 'unicode_emoji',
    }, 'every field');
    t.doesNotThrow(() => checkEvent(event), 'matches the reference schema');
    t.same(userIds, ids(owner, hamlet, othello, polonius), 'the subscribers of general, not the unsubscribed member');
  });

  t.test('reaction add: an unsubscribed member reacting to a public channel hears of it too', async (t) => {
    await react(outsider, general, 'octopus');
    t.same(seen[0].userIds, ids(owner, hamlet, othello, polonius, outsider), 'the subscribers and the reacting user');
  });

  t.test('reaction remove: the reference shape, to the same audience', async (t) => {
    const res = await call(othello, 'messages.removeReaction', { message_id: general, emoji_name: 'tada' });
    t.equal(res.status, 200, 'removed');
    t.match(seen[0].event, { type: 'reaction', op: 'remove', user_id: othello.id, message_id: general, emoji_name: 'tada', emoji_code: '1f389' }, 'op remove');
    t.doesNotThrow(() => checkEvent(seen[0].event), 'matches the reference schema');
    t.same(seen[0].userIds, ids(owner, hamlet, othello, polonius), 'to the subscribers');
  });

  t.test('reaction events: a direct message\'s participants only', async (t) => {
    const dm = await send(hamlet, { type: 'direct', to: [othello.id], content: 'psst' });
    await react(othello, dm);
    t.same(seen[0].userIds, ids(hamlet, othello), 'the two participants');
    const res = await react(outsider, dm);
    t.equal(res.body.msg, 'Invalid message(s)', 'an outsider cannot react');
    t.same(seen, [], 'and nothing is emitted');
  });

  t.test('reactions: a guest only where subscribed', async (t) => {
    await call(hamlet, 'subscriptions.add', { subscriptions: [{ name: 'Verona' }] });
    const verona = await send(hamlet, { type: 'stream', to: 'Verona', topic: 't', content: 'public, but not for guests' });
    const res = await react(polonius, verona);
    t.equal(res.body.msg, 'Invalid message(s)', 'a guest outside a public channel cannot react');
    t.equal((await react(polonius, general)).status, 200, 'but can in a channel they are subscribed to');
  });

  t.test('reaction events: protected history reaches only those who received the message', async (t) => {
    await call(hamlet, 'subscriptions.add', { subscriptions: [{ name: 'vault' }], invite_only: true, history_public_to_subscribers: false });
    const before = await send(hamlet, { type: 'stream', to: 'vault', topic: 't', content: 'before othello' });
    await call(hamlet, 'subscriptions.add', { subscriptions: [{ name: 'vault' }], principals: [othello.id] });
    const res = await react(othello, before);
    t.equal(res.body.msg, 'Invalid message(s)', 'a later subscriber cannot react to what they never received');
    await react(hamlet, before);
    t.same(seen[0].userIds, ids(hamlet), 'nor hears of others\' reactions to it');
    const after = await send(hamlet, { type: 'stream', to: 'vault', topic: 't', content: 'after othello' });
    await react(othello, after);
    t.same(seen[0].userIds, ids(hamlet, othello), 'a message both received: both hear');
  });
});
