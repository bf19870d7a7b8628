import t from 'tap';
import { startTestServer } from '../../helpers/server.js';
import { listen } from '../streams/queues.js';
import { startWorld, streamId, subscribe } from '../streams/world.js';

t.test('POST /users/me/subscriptions/properties', async (t) => {
  const w = await startWorld(t);
  const { owner, hamlet, othello } = w.root;
  await subscribe(w.as(othello), ['plans'], { invite_only: true });
  await subscribe(w.as(othello), ['lounge']);
  const general = await streamId(w.as(owner), 'general');
  const plans = await streamId(w.as(owner), 'plans');
  const lounge = await streamId(w.as(owner), 'lounge');
  const set = (changes: { stream_id: number; property: string; value: unknown }[]) =>
    w.as(hamlet)('POST', '/users/me/subscriptions/properties', { params: { subscription_data: changes } });
  const mine = async () => {
    const res = await w.as(hamlet)('GET', '/users/me/subscriptions');
    return res.body.subscriptions.find((s: { stream_id: number }) => s.stream_id === general);
  };

  t.test('each property changes the subscription, with events to the user only', async (t) => {
    const hq = await listen(w.as(hamlet));
    const oq = await listen(w.as(othello));
    const res = await set([
      { stream_id: general, property: 'color', value: '#f00f00' },
      { stream_id: general, property: 'pin_to_top', value: true },
      { stream_id: general, property: 'desktop_notifications', value: true },
      { stream_id: general, property: 'audible_notifications', value: false },
      { stream_id: general, property: 'push_notifications', value: true },
      { stream_id: general, property: 'email_notifications', value: false },
      { stream_id: general, property: 'wildcard_mentions_notify', value: true },
    ]);
    t.equal(res.status, 200, 'accepted');
    t.same(res.body, { result: 'success', msg: '' }, 'a plain success');
    const sub = await mine();
    t.match(sub, { color: '#f00f00', pin_to_top: true, desktop_notifications: true, audible_notifications: false, push_notifications: true, email_notifications: false, wildcard_mentions_notify: true }, 'all stored');
    t.same(await hq.drain(t), [
      { type: 'subscription', op: 'update', property: 'color', value: '#f00f00', stream_id: general },
      { type: 'subscription', op: 'update', property: 'pin_to_top', value: true, stream_id: general },
      { type: 'subscription', op: 'update', property: 'desktop_notifications', value: true, stream_id: general },
      { type: 'subscription', op: 'update', property: 'audible_notifications', value: false, stream_id: general },
      { type: 'subscription', op: 'update', property: 'push_notifications', value: true, stream_id: general },
      { type: 'subscription', op: 'update', property: 'email_notifications', value: false, stream_id: general },
      { type: 'subscription', op: 'update', property: 'wildcard_mentions_notify', value: true, stream_id: general },
    ], 'one update event per change, in order');
    t.same(await oq.drain(t), [], 'another subscriber hears nothing');
  });

  t.test('muting sends in_home_view and is_muted, whichever is set', async (t) => {
    const hq = await listen(w.as(hamlet));
    t.equal((await set([{ stream_id: general, property: 'is_muted', value: true }])).status, 200, 'is_muted accepted');
    t.match(await mine(), { is_muted: true, in_home_view: false }, 'muted');
    t.same(await hq.drain(t), [
      { type: 'subscription', op: 'update', property: 'in_home_view', value: false, stream_id: general },
      { type: 'subscription', op: 'update', property: 'is_muted', value: true, stream_id: general },
    ], 'two events');
    t.equal((await set([{ stream_id: general, property: 'in_home_view', value: true }])).status, 200, 'in_home_view accepted');
    t.match(await mine(), { is_muted: false, in_home_view: true }, 'unmuted by the legacy inverse');
    t.same(await hq.drain(t), [
      { type: 'subscription', op: 'update', property: 'in_home_view', value: true, stream_id: general },
      { type: 'subscription', op: 'update', property: 'is_muted', value: false, stream_id: general },
    ], 'two events again');
  });

  t.test('errors', async (t) => {
    const cases: [string, { stream_id: number; property: string; value: unknown }, string][] = [
      ['an unknown property', { stream_id: general, property: 'loudness', value: true }, 'Unknown subscription property: loudness'],
      ['a colour that is not hex', { stream_id: general, property: 'color', value: 'red' }, 'color is not a hex color code'],
      ['a colour that is not a string', { stream_id: general, property: 'color', value: true }, 'color is not a string'],
      ['a boolean property given a string', { stream_id: general, property: 'is_muted', value: 'yes' }, 'is_muted is not a boolean'],
      ['an unknown channel', { stream_id: 9999, property: 'pin_to_top', value: true }, 'Invalid channel ID'],
      ['a public channel not subscribed to', { stream_id: lounge, property: 'pin_to_top', value: true }, `Not subscribed to channel ID ${lounge}`],
      ['a private channel out of reach', { stream_id: plans, property: 'pin_to_top', value: true }, 'Invalid channel ID'],
    ];
    const before = await mine();
    const hq = await listen(w.as(hamlet));
    for (const [what, change, msg] of cases) {
      const res = await set([{ stream_id: general, property: 'color', value: '#000000' }, change]);
      t.equal(res.status, 400, `${what}: refused`);
      t.same(res.body, { result: 'error', msg, code: 'BAD_REQUEST' }, `${what}: ${msg}`);
    }
    t.same(await mine(), before, 'nothing changed, not even the valid first change of a refused request');
    t.same(await hq.drain(t), [], 'and no events');
    const missing = await w.as(hamlet)('POST', '/users/me/subscriptions/properties', { params: {} });
    t.match(missing.body, { code: 'REQUEST_VARIABLE_MISSING', var_name: 'subscription_data' }, 'subscription_data is required');
    const partial = await w.as(hamlet)('POST', '/users/me/subscriptions/properties', { params: { subscription_data: [{ stream_id: general, property: 'color' }] } });
    t.match(partial.body, { result: 'error', code: 'REQUEST_VARIABLE_MISSING' }, 'each change needs a value');
  });

  t.test('the settings survive a restart', async (t) => {
    await w.ts.close();
    const ts = await startTestServer(t, {}, { dataDir: w.ts.dataDir });
    const res = await ts.as(hamlet)('GET', '/users/me/subscriptions');
    const sub = res.body.subscriptions.find((s: { stream_id: number }) => s.stream_id === general);
    t.match(sub, { color: '#f00f00', pin_to_top: true, is_muted: false, desktop_notifications: true, wildcard_mentions_notify: true }, 'as they were');
  });
});
