import t from 'tap';
import { checkEvent } from '../../helpers/openapi.js';
import { createUser, startTestServer } from '../../helpers/server.js';

/**
 * POST /register: unread_msgs, starred_messages, recent_private_conversations and
 * max_message_id, built from the sparse read state after messages are sent and read through the
 * API. Ends with the reference's convergence check: a snapshot plus the events that follow it
 * equals a fresh snapshot.
 */
type Unread = { pms: any[]; streams: any[]; huddles: any[]; mentions: number[]; count: number; old_unreads_missing: boolean };
const allUnread = (u: Unread): number[] => [...u.pms, ...u.streams, ...u.huddles].flatMap((x) => x.unread_message_ids);

t.test('POST /register: the message sections', async (t) => {
  const ts = await startTestServer(t, { heartbeatSeconds: 1 });
  const ann = await createUser(ts, 'ann@example.com', 'Ann');
  const bob = await createUser(ts, 'bob@example.com', 'Bob');
  const cy = await createUser(ts, 'cy@example.com', 'Cy');
  const asAnn = ts.as(ann);
  const asBob = ts.as(bob);
  const send = async (as: typeof asAnn, params: Record<string, unknown>) => {
    const res = await as('POST', '/messages', { params });
    if (res.status !== 200) throw new Error(JSON.stringify(res.body));
    return res.body.id as number;
  };
  const toGeneral = (topic: string, content: string) => send(asBob, { type: 'stream', to: 'general', topic, content });
  const flags = async (messages: number[], op: string, flag: string) => {
    const res = await asAnn('POST', '/messages/flags', { params: { messages, op, flag } });
    if (res.status !== 200) throw new Error(JSON.stringify(res.body));
  };
  const snapshot = async (params: Record<string, unknown> = {}) => {
    const res = await asAnn('POST', '/register', {
      params: { fetch_event_types: ['message', 'update_message_flags', 'starred_messages', 'recent_private_conversations'], ...params },
    });
    if (res.status !== 200) throw new Error(JSON.stringify(res.body));
    return res.body as { unread_msgs: Unread; starred_messages: number[]; recent_private_conversations: any[]; max_message_id: number; queue_id: string };
  };
  const general = (await asAnn('GET', '/get_stream_id', { params: { stream: 'general' } })).body.stream_id as number;

  t.test('POST /register: nothing received, nothing unread', async (t) => {
    const s = await snapshot();
    t.same(s.unread_msgs, { pms: [], streams: [], huddles: [], mentions: [], count: 0, old_unreads_missing: false }, 'the empty shape');
    t.equal(s.max_message_id, -1, 'no message yet');
    t.same(s.starred_messages, [], 'nothing starred');
    t.same(s.recent_private_conversations, [], 'no conversations');
  });

  const s1 = await toGeneral('lunch', 'one');
  const s2 = await toGeneral('Lunch', 'two');
  const empty = await toGeneral('', 'no topic here');
  const mention = await toGeneral('lunch', 'hey @**Ann**');
  const dm = await send(asBob, { type: 'direct', to: [ann.userId], content: 'just us' });
  const group = await send(asBob, { type: 'direct', to: [ann.userId, cy.userId], content: 'all three' });
  const others = await send(asBob, { type: 'direct', to: [cy.userId], content: 'not for Ann' });

  t.test('POST /register: unread messages by conversation', async (t) => {
    const s = await snapshot();
    const u = s.unread_msgs;
    t.same(u.pms, [{ other_user_id: bob.userId, sender_id: bob.userId, unread_message_ids: [dm] }], 'the 1:1 conversation, by the other user');
    t.same(u.huddles, [{ user_ids_string: [ann.userId, bob.userId, cy.userId].join(','), unread_message_ids: [group] }], 'the group conversation, every participant');
    t.same(u.streams, [
      { stream_id: general, topic: 'general chat', unread_message_ids: [empty] },
      { stream_id: general, topic: 'lunch', unread_message_ids: [s1, s2, mention] },
    ], 'topics match case-insensitively, named as first seen; the empty topic shows its display name');
    t.same(u.mentions, [mention], 'the mention');
    t.equal(u.count, 6, 'six unread; the DM between others is not Ann\'s');
    t.equal(u.old_unreads_missing, false, 'nothing truncated');
    t.equal(s.max_message_id, group, 'the newest message Ann received');
    t.notOk(allUnread(u).includes(others), 'the others\' DM is nowhere');
    const modern = await snapshot({ client_capabilities: { empty_topic_name: true } });
    t.equal(modern.unread_msgs.streams[0].topic, '', 'with empty_topic_name the topic is the empty string');
  });

  t.test('POST /register: reading, in order and out of order, and marking unread again', async (t) => {
    await flags([s1], 'add', 'read');
    await flags([mention], 'add', 'read');
    let u = (await snapshot()).unread_msgs;
    t.same(u.streams[1].unread_message_ids, [s2], 'read at the bottom (watermark) and out of order (flip)');
    t.same(u.mentions, [], 'a read mention is no longer listed');
    t.equal(u.count, 4, 'four left');
    await flags([s1], 'remove', 'read');
    u = (await snapshot()).unread_msgs;
    t.same(u.streams[1].unread_message_ids, [s1, s2], 'marked unread below the watermark: unread again');
    await flags([s1, s2, empty], 'add', 'read');
    u = (await snapshot()).unread_msgs;
    t.same(u.streams, [], 'the channel is read');
    t.equal(u.count, 2, 'the two direct messages remain');
  });

  t.test('POST /register: one\'s own messages, read by sending them', async (t) => {
    const own = await send(asAnn, { type: 'stream', to: 'general', topic: 'mine', content: 'by Ann', read_by_sender: true });
    const self = await send(asAnn, { type: 'direct', to: [ann.userId], content: 'note to self', read_by_sender: true });
    const s = await snapshot();
    t.notOk(allUnread(s.unread_msgs).includes(own), 'her channel message is read');
    t.notOk(allUnread(s.unread_msgs).includes(self), 'and her note to self');
    t.equal(s.max_message_id, self, 'max_message_id counts what she sent');
    t.same(s.recent_private_conversations, [
      { max_message_id: self, user_ids: [] },
      { max_message_id: group, user_ids: [bob.userId, cy.userId] },
      { max_message_id: dm, user_ids: [bob.userId] },
    ], 'conversations newest first; the self-conversation has no other users');
  });

  t.test('POST /register: starred_messages', async (t) => {
    await flags([dm, s2], 'add', 'starred');
    t.same((await snapshot()).starred_messages, [s2, dm], 'ascending');
    await flags([s2], 'remove', 'starred');
    t.same((await snapshot()).starred_messages, [dm], 'unstarred');
  });

  t.test('POST /register: channels one has left do not count', async (t) => {
    const created = await asBob('POST', '/users/me/subscriptions', { params: { subscriptions: [{ name: 'verona' }], principals: [ann.userId, bob.userId] } });
    t.equal(created.status, 200, 'both in verona');
    const inVerona = await send(asBob, { type: 'stream', to: 'verona', topic: 't', content: 'in verona' });
    t.ok(allUnread((await snapshot()).unread_msgs).includes(inVerona), 'unread while subscribed');
    await asAnn('DELETE', '/users/me/subscriptions', { params: { subscriptions: ['verona'] } });
    t.notOk(allUnread((await snapshot()).unread_msgs).includes(inVerona), 'gone after leaving');
  });

  t.test('POST /register: mark all as read', async (t) => {
    await asAnn('POST', '/mark_all_as_read');
    t.same((await snapshot()).unread_msgs, { pms: [], streams: [], huddles: [], mentions: [], count: 0, old_unreads_missing: false }, 'nothing unread');
  });

  t.test('POST /register: the snapshot plus the events equals a fresh snapshot', async (t) => {
    const before = await snapshot({ event_types: ['message', 'update_message_flags'] });
    const m1 = await toGeneral('converge', 'first');
    const m2 = await send(asBob, { type: 'direct', to: [ann.userId], content: 'second @**Ann**' });
    await flags([m1], 'add', 'read');
    const polled = await asAnn('GET', '/events', { params: { queue_id: before.queue_id, last_event_id: -1, dont_block: true } });
    const events = polled.body.events as Record<string, any>[];
    t.same(events.map((e) => e.type), ['message', 'message', 'update_message_flags'], 'two messages and a flag change');
    for (const event of events) t.doesNotThrow(() => checkEvent(event), `${event.type} matches the reference`);
    const state = structuredClone(before);
    for (const event of events) applyUnread(state, event, ann.userId);
    const after = await snapshot();
    t.same(state.unread_msgs, after.unread_msgs, 'unread_msgs converges');
    t.equal(state.max_message_id, after.max_message_id, 'max_message_id converges');
    t.same(after.unread_msgs.pms, [{ other_user_id: bob.userId, sender_id: bob.userId, unread_message_ids: [m2] }], 'the DM is unread');
    t.same(after.unread_msgs.mentions, [m2], 'and a mention');
  });
});

/** What a client does with message and flag events to keep unread_msgs (the reference's apply_event). */
function applyUnread(state: { unread_msgs: Unread; max_message_id: number }, event: Record<string, any>, me: number): void {
  const u = state.unread_msgs;
  if (event.type === 'message') {
    const msg = event.message;
    state.max_message_id = Math.max(state.max_message_id, msg.id);
    if (event.flags.includes('read')) return;
    u.count++;
    if (event.flags.includes('mentioned')) u.mentions.push(msg.id);
    if (msg.type === 'stream') {
      const entry = u.streams.find((s) => s.stream_id === msg.stream_id && s.topic.toLowerCase() === msg.subject.toLowerCase());
      if (entry) entry.unread_message_ids.push(msg.id);
      else u.streams.push({ stream_id: msg.stream_id, topic: msg.subject, unread_message_ids: [msg.id] });
    } else {
      const others = msg.display_recipient.map((r: { id: number }) => r.id).filter((id: number) => id !== me);
      if (others.length <= 1) {
        const other = others[0] ?? me;
        const entry = u.pms.find((p) => p.other_user_id === other);
        if (entry) entry.unread_message_ids.push(msg.id);
        else u.pms.push({ other_user_id: other, sender_id: other, unread_message_ids: [msg.id] });
      }
    }
  } else if (event.type === 'update_message_flags' && event.flag === 'read' && event.op === 'add') {
    const gone = new Set<number>(event.messages);
    const drop = (list: { unread_message_ids: number[] }[]) =>
      list.map((x) => ({ ...x, unread_message_ids: x.unread_message_ids.filter((id) => !gone.has(id)) })).filter((x) => x.unread_message_ids.length > 0);
    const before = [...u.pms, ...u.streams, ...u.huddles].reduce((n, x) => n + x.unread_message_ids.length, 0);
    u.pms = drop(u.pms);
    u.streams = drop(u.streams);
    u.huddles = drop(u.huddles);
    u.count -= before - [...u.pms, ...u.streams, ...u.huddles].reduce((n, x) => n + x.unread_message_ids.length, 0);
    u.mentions = u.mentions.filter((id) => !gone.has(id));
  }
}
