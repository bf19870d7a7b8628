import t from 'tap';
import { startWorld } from '../streams/world.js';

/** GET, POST /scheduled_messages; PATCH, DELETE /scheduled_messages/{id}: rules, errors, ownership. */

const DAY = 86400;
const later = (s = DAY) => Math.floor(Date.now() / 1000) + s;

t.test('scheduled messages', async (t) => {
  const w = await startWorld(t);
  const { hamlet, othello, polonius, owner, bot } = w.root;
  const as = w.as(hamlet);
  const general = (await as('GET', '/get_stream_id', { params: { stream: 'general' } })).body.stream_id as number;
  const schedule = (params: Record<string, unknown>, who = hamlet) => w.as(who)('POST', '/scheduled_messages', { params: { scheduled_delivery_timestamp: later(), ...params } });
  const list = async (who = hamlet) => (await w.as(who)('GET', '/scheduled_messages')).body.scheduled_messages as Record<string, any>[];
  const one = async (id: number) => (await list()).find((m) => m.scheduled_message_id === id)!;

  t.test('POST: channel and direct messages, and how GET lists them', async (t) => {
    const ts1 = later(2 * DAY);
    const ts2 = later(DAY);
    const a = await schedule({ type: 'channel', to: general, topic: 'Test topic', content: 'Test message 1', scheduled_delivery_timestamp: ts1 });
    t.equal(a.status, 200, 'a channel message');
    const b = await schedule({ type: 'direct', to: [othello.userId], content: '**Test** message 3', scheduled_delivery_timestamp: ts2 });
    t.equal(b.status, 200, 'a direct message');
    const c = await schedule({ type: 'private', to: [othello.userId, owner.userId], content: 'group', scheduled_delivery_timestamp: ts2 });
    const d = await schedule({ type: 'stream', to: JSON.stringify(general), topic: '(no topic)', content: 'empty topic' });
    t.ok(a.body.scheduled_message_id > 0 && b.body.scheduled_message_id > a.body.scheduled_message_id, 'ids increase');
    const got = await list();
    t.same(got.find((m) => m.scheduled_message_id === a.body.scheduled_message_id), {
      scheduled_message_id: a.body.scheduled_message_id,
      to: general,
      type: 'stream',
      content: 'Test message 1',
      rendered_content: '<p>Test message 1</p>',
      topic: 'Test topic',
      scheduled_delivery_timestamp: ts1,
      failed: false,
    }, 'the channel message as the reference shows it (type stream)');
    t.same(got.find((m) => m.scheduled_message_id === b.body.scheduled_message_id), {
      scheduled_message_id: b.body.scheduled_message_id,
      to: [othello.userId],
      type: 'private',
      content: '**Test** message 3',
      rendered_content: '<p><strong>Test</strong> message 3</p>',
      scheduled_delivery_timestamp: ts2,
      failed: false,
    }, 'the direct message: type private, no topic');
    t.same((await one(c.body.scheduled_message_id)).to, [othello.userId, owner.userId].sort((x, y) => x - y), 'a group: the others, ascending');
    t.equal((await one(d.body.scheduled_message_id)).topic, '', '"(no topic)" is the empty topic');
    const order = got.map((m) => m.scheduled_delivery_timestamp);
    t.same(order, [...order].sort((x, y) => x - y), 'ordered by delivery time');
    t.same(await list(othello), [], 'another user sees none of them');
    t.same((await w.asOther(w.other.hamlet)('GET', '/scheduled_messages')).body.scheduled_messages, [], 'nor does another realm');
  });

  t.test('POST: the errors of the reference', async (t) => {
    const cases: [Record<string, unknown>, string, string?][] = [
      [{ type: 'stream', to: general, topic: 't', content: 'x', scheduled_delivery_timestamp: later(-DAY) }, 'Scheduled delivery time must be in the future.'],
      [{ type: 'stream', to: general, topic: 't', content: 'x', scheduled_delivery_timestamp: later(0) }, 'Scheduled delivery time must be in the future.'],
      [{ type: 'direct', to: [othello.email], content: 'x' }, 'Recipient list may only contain user IDs'],
      [{ type: 'direct', to: othello.userId, content: 'x' }, 'Invalid data type for recipients'],
      [{ type: 'direct', to: [99999], content: 'x' }, 'Invalid user ID 99999'],
      [{ type: 'stream', to: 'general', topic: 't', content: 'x' }, 'Invalid data type for channel ID'],
      [{ type: 'stream', to: general, content: 'x' }, 'Missing topic'],
      [{ type: 'stream', to: general, topic: 't', content: '  ' }, 'Message must not be empty'],
      [{ type: 'stream', to: general, topic: 't', content: 'a\u0000b' }, 'Message must not contain null bytes'],
    ];
    for (const [params, msg] of cases) {
      const res = await schedule(params);
      t.same([res.status, res.body.code, res.body.msg], [400, 'BAD_REQUEST', msg], msg);
    }
    const missing = await schedule({ type: 'stream', to: 99999, topic: 't', content: 'x' });
    t.same(missing.body, { result: 'error', msg: "Channel with ID '99999' does not exist", code: 'STREAM_DOES_NOT_EXIST', stream_id: 99999 }, 'STREAM_DOES_NOT_EXIST with stream_id');
    let res = await w.as(hamlet)('POST', '/scheduled_messages', { params: { type: 'stream', to: general, topic: 't', content: 'x' } });
    t.same([res.body.code, res.body.var_name], ['REQUEST_VARIABLE_MISSING', 'scheduled_delivery_timestamp'], 'the time is required');
    res = await schedule({ type: 'email', to: general, content: 'x' });
    t.equal(res.body.code, 'REQUEST_VARIABLE_INVALID', 'an unknown type');
  });

  t.test('POST: who may schedule what is who may send it', async (t) => {
    await w.as(owner)('POST', '/users/me/subscriptions', { params: { subscriptions: [{ name: 'owners-only' }], invite_only: true } });
    const secret = (await w.as(owner)('GET', '/get_stream_id', { params: { stream: 'owners-only' } })).body.stream_id;
    let res = await schedule({ type: 'stream', to: secret, topic: 't', content: 'x' });
    t.same([res.status, res.body.msg], [400, "Not authorized to send to channel 'owners-only'"], 'a private channel the member is not in');
    res = await schedule({ type: 'stream', to: secret, topic: 't', content: 'x' }, owner);
    t.equal(res.status, 200, 'its subscriber may');
    await w.as(owner)('POST', '/users/me/subscriptions', { params: { subscriptions: [{ name: 'open' }] } });
    const open = (await w.as(owner)('GET', '/get_stream_id', { params: { stream: 'open' } })).body.stream_id;
    res = await schedule({ type: 'stream', to: open, topic: 't', content: 'x' }, polonius);
    t.same([res.status, res.body.msg], [400, "Not authorized to send to channel 'open'"], 'a guest outside the channel');
    res = await schedule({ type: 'stream', to: general, topic: 't', content: 'x' }, polonius);
    t.equal(res.status, 200, 'a guest in the channel may');
    res = await schedule({ type: 'stream', to: general, topic: 't', content: 'from a bot' }, bot);
    t.equal(res.status, 200, 'a bot may');
  });

  t.test('PATCH: the rules of the state table and the PATCH section', async (t) => {
    const ts0 = later();
    const id = (await schedule({ type: 'stream', to: general, topic: 'Test topic', content: 'Original test message', scheduled_delivery_timestamp: ts0 })).body.scheduled_message_id;
    const patch = (params: Record<string, unknown>, who = hamlet) => w.as(who)('PATCH', `/scheduled_messages/${id}`, { params });
    let res = await patch({});
    t.same([res.status, res.body.msg], [400, 'Nothing to change'], 'nothing');
    res = await patch({ type: 'direct' });
    t.equal(res.body.msg, 'Recipient required when updating type of scheduled message.', 'a type without to');
    res = await patch({ type: 'channel', to: general });
    t.equal(res.body.msg, 'Topic required when updating scheduled message type to channel.', 'a channel type without topic');
    res = await patch({ scheduled_delivery_timestamp: later(-DAY) });
    t.equal(res.body.msg, 'Scheduled delivery time must be in the future.', 'a time in the past');
    res = await patch({ to: 99999 });
    t.same(res.body, { result: 'error', msg: "Channel with ID '99999' does not exist", code: 'STREAM_DOES_NOT_EXIST', stream_id: 99999 }, 'STREAM_DOES_NOT_EXIST with stream_id');
    res = await patch({ type: 'direct', to: [99999] });
    t.equal(res.body.msg, 'Invalid user ID 99999', 'an invalid user');
    t.same(await one(id), { scheduled_message_id: id, to: general, type: 'stream', content: 'Original test message', rendered_content: '<p>Original test message</p>', topic: 'Test topic', scheduled_delivery_timestamp: ts0, failed: false }, 'failed edits changed nothing');
    res = await patch({ content: 'x' }, othello);
    t.same([res.status, res.body.msg], [404, 'Scheduled message does not exist'], "another user's message does not exist for them");
    res = await w.as(hamlet)('PATCH', '/scheduled_messages/99999', { params: { content: 'x' } });
    t.same([res.status, res.body.msg], [404, 'Scheduled message does not exist'], 'an unknown id');

    res = await patch({ type: 'stream', to: general, topic: 'Test topic' });
    t.equal(res.status, 200, 'the same type and target');
    res = await patch({ type: 'direct', to: [othello.userId] });
    t.equal(res.status, 200, 'to a direct message');
    let m = await one(id);
    t.same([m.type, m.to, m.topic], ['private', [othello.userId], undefined], 'now direct, without a topic');
    res = await patch({ topic: 'Direct message topic' });
    t.equal(res.status, 200, 'a topic for a direct message is accepted');
    t.equal((await one(id)).topic, undefined, '...and ignored');
    res = await patch({ type: 'channel', to: general, topic: 'New test topic' });
    m = await one(id);
    t.same([m.type, m.to, m.topic], ['stream', general, 'New test topic'], 'back to the channel');
    const ts1 = later(3 * DAY);
    res = await patch({ content: 'Edited **test** message', scheduled_delivery_timestamp: ts1 });
    m = await one(id);
    t.same([m.content, m.rendered_content, m.scheduled_delivery_timestamp, m.topic], ['Edited **test** message', '<p>Edited <strong>test</strong> message</p>', ts1, 'New test topic'], 'content and time');
    res = await patch({ topic: 'Final topic', content: 'Final content' });
    m = await one(id);
    t.same([m.topic, m.content], ['Final topic', 'Final content'], 'topic and content together');
    res = await patch({ topic: 'Only the topic' });
    t.same([(await one(id)).topic, (await one(id)).content], ['Only the topic', 'Final content'], 'the topic alone');
  });

  t.test('DELETE: only the owner, once', async (t) => {
    const id = (await schedule({ type: 'stream', to: general, topic: 't', content: 'to delete' })).body.scheduled_message_id;
    let res = await w.as(othello)('DELETE', `/scheduled_messages/${id}`);
    t.same([res.status, res.body.msg, res.body.code], [404, 'Scheduled message does not exist', 'BAD_REQUEST'], 'not by another user');
    res = await as('DELETE', `/scheduled_messages/${id}`);
    t.equal(res.status, 200, 'deleted');
    res = await as('DELETE', `/scheduled_messages/${id}`);
    t.same([res.status, res.body.msg], [404, 'Scheduled message does not exist'], 'already deleted');
    t.notOk((await list()).some((m) => m.scheduled_message_id === id), 'gone from the list');
  });

  t.test('/register: scheduled_messages as GET lists them', async (t) => {
    const reg = await as('POST', '/register', { params: { fetch_event_types: ['scheduled_messages'] } });
    t.same(reg.body.scheduled_messages, await list(), 'the same list');
    const others = await w.as(othello)('POST', '/register', { params: { fetch_event_types: ['scheduled_messages'] } });
    t.same(others.body.scheduled_messages, [], "another user's is empty");
  });
});
