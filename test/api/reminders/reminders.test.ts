import t from 'tap';
import { convergenceHarness } from '../../helpers/convergence.js';
import type { Credentials } from '../../helpers/server.js';
import { startWorld, type Person } from '../streams/world.js';

/** POST, GET /reminders; DELETE /reminders/{id}; delivery by the Notification Bot. */

const now = () => Math.floor(Date.now() / 1000);
const BOT = 'notification-bot@zulip.com';

t.test('message reminders', async (t) => {
  const w = await startWorld(t);
  const { hamlet, othello, owner, polonius } = w.root;
  const ok = async (who: Credentials, method: string, path: string, params: Record<string, unknown> = {}) => {
    const res = await w.as(who as Person)(method, path, { params });
    if (res.status !== 200) throw new Error(`${method} ${path}: ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const send = async (who: Person, params: Record<string, unknown>) => (await ok(who, 'POST', '/messages', params)).id as number;
  const remind = (who: Person, params: Record<string, unknown>) => w.as(who)('POST', '/reminders', { params: { scheduled_delivery_timestamp: now() + 86400, ...params } });
  const reminders = async (who: Person) => (await ok(who, 'GET', '/reminders')).reminders as Record<string, any>[];
  const realmUrl = 'http://localhost:9991';

  const channelMsg = await send(othello, { type: 'stream', to: 'general', topic: 'plans', content: 'Lunch at noon?' });
  const dmMsg = await send(othello, { type: 'direct', to: [hamlet.userId], content: 'just between us' });

  t.test('POST /reminders: the reminder, its text and its listing', async (t) => {
    const at = now() + 86400;
    const res = await remind(hamlet, { message_id: channelMsg, scheduled_delivery_timestamp: at, note: 'bring snacks' });
    t.equal(res.status, 200, 'created');
    const id = res.body.reminder_id;
    const [r] = (await reminders(hamlet)).filter((x) => x.reminder_id === id);
    const origin = (await ok(hamlet, 'POST', '/register', { fetch_event_types: ['realm'] })).realm_url ?? realmUrl;
    const general = (await ok(hamlet, 'GET', '/get_stream_id', { stream: 'general' })).stream_id;
    const expected =
      `You requested a reminder for #**general>plans@${channelMsg}**. Note:\n > bring snacks\n\n` +
      `@_**othello|${othello.userId}** [said](${origin}/#narrow/channel/${general}-general/topic/plans/near/${channelMsg}):\n` +
      '```quote\nLunch at noon?\n```';
    t.same({ ...r, rendered_content: '' }, { reminder_id: id, to: [hamlet.userId], type: 'private', content: expected, rendered_content: '', scheduled_delivery_timestamp: at, failed: false, reminder_target_message_id: channelMsg }, 'the reference shape and text');
    t.match(r.rendered_content, /<blockquote>/, 'rendered, with the message quoted');
    const dm = await remind(hamlet, { message_id: dmMsg });
    const [d] = (await reminders(hamlet)).filter((x) => x.reminder_id === dm.body.reminder_id);
    t.match(d.content, /^You requested a reminder for the following direct message\.\n\n@_\*\*othello\|\d+\*\* \[said\]\(.*\/#narrow\/dm\/\d+,\d+\/near\/\d+\):\n```quote\njust between us\n```$/, 'a direct message');
    t.same(await reminders(othello), [], "nobody else sees hamlet's reminders");
    t.same((await ok(hamlet, 'GET', '/scheduled_messages')).scheduled_messages, [], 'reminders are not scheduled messages');
    const reg = await ok(hamlet, 'POST', '/register', { fetch_event_types: ['reminders', 'scheduled_messages'] });
    t.same(reg.reminders, await reminders(hamlet), '/register lists them');
    t.same(reg.scheduled_messages, [], 'and apart from scheduled messages');
  });

  t.test('POST /reminders: errors', async (t) => {
    await ok(owner, 'POST', '/users/me/subscriptions', { subscriptions: [{ name: 'hidden' }], invite_only: true });
    const hidden = await send(owner, { type: 'stream', to: 'hidden', topic: 'x', content: 'secret' });
    const cases: [Person, Record<string, unknown>, string][] = [
      [hamlet, { message_id: channelMsg, scheduled_delivery_timestamp: now() - 60 }, 'Scheduled delivery time must be in the future.'],
      [hamlet, { message_id: 999999 }, 'Invalid message(s)'],
      [hamlet, { message_id: hidden }, 'Invalid message(s)'],
      [polonius, { message_id: dmMsg }, 'Invalid message(s)'],
      [hamlet, { message_id: channelMsg, note: 'n'.repeat(1001) }, 'Maximum reminder note length: 1000 characters'],
    ];
    for (const [who, params, msg] of cases) {
      const res = await remind(who, params);
      t.same([res.status, res.body.msg], [400, msg], `${who.email}: ${msg}`);
    }
    const missing = await w.as(hamlet)('POST', '/reminders', { params: { message_id: channelMsg } });
    t.same([missing.body.code, missing.body.var_name], ['REQUEST_VARIABLE_MISSING', 'scheduled_delivery_timestamp'], 'the time is required');
  });

  t.test('DELETE /reminders/{id}: the owner only; scheduled messages are not reminders', async (t) => {
    const id = (await remind(hamlet, { message_id: channelMsg })).body.reminder_id;
    let res = await w.as(othello)('DELETE', `/reminders/${id}`);
    t.same([res.status, res.body.msg], [404, 'Reminder does not exist'], 'not by another user');
    const sm = await ok(hamlet, 'POST', '/scheduled_messages', { type: 'stream', to: 1, topic: 't', content: 'x', scheduled_delivery_timestamp: now() + 3600 });
    res = await w.as(hamlet)('DELETE', `/reminders/${sm.scheduled_message_id}`);
    t.same([res.status, res.body.msg], [404, 'Reminder does not exist'], 'a scheduled message is no reminder');
    res = await w.as(hamlet)('DELETE', `/scheduled_messages/${id}`);
    t.same([res.status, res.body.msg], [404, 'Scheduled message does not exist'], 'and a reminder is no scheduled message');
    res = await w.as(hamlet)('DELETE', `/reminders/${id}`);
    t.equal(res.status, 200, 'deleted');
    t.notOk((await reminders(hamlet)).some((r) => r.reminder_id === id), 'gone');
    res = await w.as(hamlet)('DELETE', `/reminders/${id}`);
    t.equal(res.status, 404, 'only once');
  });

  t.test('delivery: a direct message from the Notification Bot at the time; events converge', async (t) => {
    const { converges } = convergenceHarness(t, w.ts);
    const opts = { sections: ['reminders'] };
    let id = 0;
    const at = now() + 6;
    await converges('creating a reminder', async () => (id = (await remind(hamlet, { message_id: channelMsg, scheduled_delivery_timestamp: at, note: 'now!' })).body.reminder_id), [hamlet, othello], opts);
    await converges('its delivery', async () => {
      const deadline = Date.now() + 20_000;
      while ((await reminders(hamlet)).some((r) => r.reminder_id === id) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
      // GET /reminders already reads the delivery's writes while its commit, after which its
      // events go out, may be in flight. A register waits for commits in flight to finish.
      const settled = await ok(hamlet, 'POST', '/register', { event_types: ['message'] });
      await ok(hamlet, 'DELETE', '/events', { queue_id: settled.queue_id });
    }, [hamlet, othello], opts);
    const msgs = (await ok(hamlet, 'GET', '/messages', { anchor: 'newest', num_before: 5, num_after: 0, apply_markdown: false })).messages as any[];
    const reminder = msgs.find((m) => m.sender_email === BOT && m.content.includes('now!'));
    t.ok(reminder, 'the reminder arrived');
    t.same(reminder.display_recipient.map((r: { id: number }) => r.id).sort(), [hamlet.userId, reminder.sender_id].sort(), 'to hamlet, from the bot');
    t.ok(reminder.timestamp >= at, 'not before its time');
    t.match(reminder.content, /^You requested a reminder for #\*\*general>plans@\d+\*\*\. Note:\n > now!/, 'the reminder text');
    t.notOk(reminder.flags.includes('read'), 'unread for hamlet');
  });
});
