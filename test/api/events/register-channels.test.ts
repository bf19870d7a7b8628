import t from 'tap';
import { startWorld, streamId, subscribe } from '../streams/world.js';

/** POST /register: subscriptions, never_subscribed, streams and realm_default_streams. */
t.test('POST /register: channels', async (t) => {
  const w = await startWorld(t);
  const { owner, admin, hamlet, othello, polonius, bot } = w.root;
  await subscribe(w.as(othello), ['verona']);
  await subscribe(w.as(admin), ['secret'], { invite_only: true });
  const general = await streamId(w.as(owner), 'general');
  const verona = await streamId(w.as(owner), 'verona');
  const secret = await streamId(w.as(owner), 'secret');
  const register = async (who: typeof owner, params: Record<string, unknown>) => {
    const res = await w.as(who)('POST', '/register', { params: { fetch_event_types: ['subscription', 'stream', 'default_streams'], ...params } });
    if (res.status !== 200) throw new Error(JSON.stringify(res.body));
    return res.body as Record<string, any>;
  };
  const streamIds = (list: { stream_id: number }[]) => list.map((s) => s.stream_id);
  const generalSubscribers = [owner, admin, hamlet, othello, polonius, bot].map((p) => p.userId).sort((a, b) => a - b);

  t.test('POST /register: a member\'s subscriptions and the public channels they are not in', async (t) => {
    const body = await register(hamlet, {});
    t.same(streamIds(body.subscriptions), [general], 'subscribed to general');
    t.same(body.unsubscribed, [], 'nothing remembered as unsubscribed');
    t.same(streamIds(body.never_subscribed), [verona], 'verona is public; secret is hidden');
    t.notOk('subscribers' in body.subscriptions[0], 'no subscriber lists unless asked');
    t.same(streamIds(body.streams), [general, verona], 'streams: what the member can see, by name');
    t.same(body.realm_default_streams, [general], 'the default channel');
  });

  t.test('POST /register: include_subscribers', async (t) => {
    const full = await register(hamlet, { include_subscribers: true });
    t.same(full.subscriptions[0].subscribers, generalSubscribers, 'subscribers of a subscribed channel');
    t.same(full.never_subscribed[0].subscribers, [othello.userId], 'and of a channel one can see');
    const partial = await register(hamlet, { include_subscribers: 'partial' });
    t.same(partial.subscriptions[0].subscribers, generalSubscribers, 'partial: small channels are listed in full');
    t.notOk('partial_subscribers' in partial.subscriptions[0], 'no partial list for a small channel');
  });

  t.test('POST /register: notification settings are booleans unless the client handles null', async (t) => {
    const legacy = (await register(hamlet, {})).subscriptions[0];
    t.match(legacy, { desktop_notifications: false, audible_notifications: false, push_notifications: false, email_notifications: false }, 'the user\'s own channel defaults');
    t.equal(legacy.wildcard_mentions_notify, null, 'wildcard_mentions_notify stays null, as in the reference');
    const modern = (await register(hamlet, { client_capabilities: { notification_settings_null: true } })).subscriptions[0];
    t.match(modern, { desktop_notifications: null, audible_notifications: null, push_notifications: null, email_notifications: null }, 'null: inherit');
  });

  t.test('POST /register: private channels', async (t) => {
    const creator = await register(admin, { include_subscribers: true });
    t.same(streamIds(creator.subscriptions), [general, secret], 'the creator is subscribed, by name');
    t.same(creator.subscriptions[1].subscribers, [admin.userId], 'its subscribers');
    const ownerBody = await register(owner, {});
    t.same(streamIds(ownerBody.never_subscribed), [secret, verona], 'an administrator sees that the private channel exists');
    t.same(streamIds(ownerBody.streams), [general, secret, verona], 'and lists it in streams');
    t.notOk(streamIds((await register(othello, {})).streams).includes(secret), 'a member who is not in it does not');
  });

  t.test('POST /register: a guest sees only their own channels', async (t) => {
    const body = await register(polonius, {});
    t.same(streamIds(body.subscriptions), [general], 'subscribed to general');
    t.same(body.never_subscribed, [], 'public channels are not theirs to see');
    t.same(streamIds(body.streams), [general], 'streams: general only');
    t.same(body.realm_default_streams, [], 'guests get no default channels, as in the reference');
  });

  t.test('POST /register: unsubscribed lists only the channels left that one can still see', async (t) => {
    const leave = (who: typeof owner, name: string) => w.as(who)('DELETE', '/users/me/subscriptions', { params: { subscriptions: [name] } });
    await subscribe(w.as(hamlet), ['verona']);
    await subscribe(w.as(admin), ['secret'], { invite_only: true, principals: [hamlet.userId] });
    await subscribe(w.as(owner), ['verona'], { principals: [polonius.userId] });
    for (const [who, name] of [[hamlet, 'verona'], [hamlet, 'secret'], [polonius, 'verona']] as const) t.equal((await leave(who, name)).status, 200, `${name} left`);
    const member = await register(hamlet, {});
    t.same(streamIds(member.unsubscribed), [verona], 'a member: the public channel left, not the private one');
    t.notOk(streamIds(member.never_subscribed).includes(secret), 'nor does the private one show as never subscribed');
    const guest = await register(polonius, {});
    t.same(guest.unsubscribed, [], 'a guest: not the public channel left either, which they no longer see');
  });
});
