import t from 'tap';
import { STREAM_COLORS } from '../../../src/api/subscriptions/actions.js';
import { startWorld, subscribe } from '../streams/world.js';

t.test('GET /users/me/subscriptions', async (t) => {
  const w = await startWorld(t);
  const { hamlet, othello, polonius, owner } = w.root;
  await subscribe(w.as(hamlet), ['zebra', 'Apple', 'mango']);
  await subscribe(w.as(hamlet), ['secret'], { invite_only: true, principals: [hamlet.userId, othello.userId] });

  t.test('GET /users/me/subscriptions: lists the user\'s channels by name with personal settings', async (t) => {
    const res = await w.as(hamlet)('GET', '/users/me/subscriptions');
    t.equal(res.status, 200, 'status 200');
    const subs = res.body.subscriptions;
    t.same(subs.map((s: { name: string }) => s.name), ['Apple', 'general', 'mango', 'secret', 'zebra'], 'sorted by name, in code point order');
    for (const s of subs) {
      t.equal(s.is_muted, false, `${s.name}: not muted`);
      t.equal(s.in_home_view, true, `${s.name}: in_home_view is the inverse of is_muted`);
      t.equal(s.pin_to_top, false, `${s.name}: not pinned`);
      for (const k of ['desktop_notifications', 'audible_notifications', 'push_notifications', 'email_notifications', 'wildcard_mentions_notify']) {
        t.equal(s[k], null, `${s.name}: ${k} inherits the user setting`);
      }
      t.ok(STREAM_COLORS.includes(s.color), `${s.name}: color ${s.color} is from the reference palette`);
      t.notOk('subscribers' in s, `${s.name}: no subscribers unless asked`);
    }
    t.equal(new Set(subs.map((s: { color: string }) => s.color)).size, subs.length, 'each channel gets a different color');
  });

  t.test('GET /users/me/subscriptions: include_subscribers lists subscriber ids', async (t) => {
    const res = await w.as(othello)('GET', '/users/me/subscriptions', { params: { include_subscribers: true } });
    const secret = res.body.subscriptions.find((s: { name: string }) => s.name === 'secret');
    t.same(secret.subscribers, [hamlet.userId, othello.userId].sort((a, b) => a - b), 'the private channel\'s subscribers, for a subscriber');
    const general = res.body.subscriptions.find((s: { name: string }) => s.name === 'general');
    t.same(general.subscribers, Object.values(w.root).map((p) => p.userId).sort((a, b) => a - b), 'everyone is in general');
  });

  t.test('GET /users/me/subscriptions: only the caller\'s own subscriptions', async (t) => {
    const res = await w.as(polonius)('GET', '/users/me/subscriptions');
    t.same(res.body.subscriptions.map((s: { name: string }) => s.name), ['general'], 'the guest sees only its own channel');
    const ownerRes = await w.as(owner)('GET', '/users/me/subscriptions');
    t.notOk(ownerRes.body.subscriptions.some((s: { name: string }) => s.name === 'secret'), 'an owner does not get others\' private subscriptions');
    const other = await w.asOther(w.other.hamlet)('GET', '/users/me/subscriptions');
    t.same(other.body.subscriptions.map((s: { name: string }) => s.name), ['general'], 'a user of realm other sees none of these');
  });

  t.test('GET /users/me/subscriptions: a requested color is kept', async (t) => {
    await subscribe(w.as(othello), ['painted'], { subscriptions: [{ name: 'painted', color: '#ABCDEF' }] });
    const res = await w.as(othello)('GET', '/users/me/subscriptions');
    t.equal(res.body.subscriptions.find((s: { name: string }) => s.name === 'painted').color, '#ABCDEF', 'the color asked for');
  });

  t.test('GET /users/me/subscriptions: rejects a non-boolean include_subscribers', async (t) => {
    const res = await w.as(hamlet)('GET', '/users/me/subscriptions', { params: { include_subscribers: 'lots' } });
    t.equal(res.status, 400, 'status 400');
    t.equal(res.body.var_name, 'include_subscribers', 'names the parameter');
  });
});
