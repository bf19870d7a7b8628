import t from 'tap';
import { createUser, startTestServer } from '../../helpers/server.js';

const NEWEST = 10_000_000_000_000_000;

/** GET /messages ranges: anchors, include_anchor, limits, and the found_* bookkeeping. */
t.test('GET /messages: anchors and ranges', async (t) => {
  const ts = await startTestServer(t);
  const ann = await createUser(ts, 'ann@example.com', 'Ann');
  const bob = await createUser(ts, 'bob@example.com', 'Bob');
  const asAnn = ts.as(ann);
  const g: number[] = [];
  for (let i = 0; i < 10; i++) {
    const res = await ts.as(bob)('POST', '/messages', { params: { type: 'stream', to: 'general', topic: `t${i % 2}`, content: `message ${i}` } });
    g.push(res.body.id);
  }
  const narrow = JSON.stringify([{ operator: 'channel', operand: 'general' }]);
  const get = (params: Record<string, unknown>) => asAnn('GET', '/messages', { params: { narrow, ...params } });
  const ids = (res: { body: { messages: { id: number }[] } }) => res.body.messages.map((m) => m.id);
  const found = (res: { body: Record<string, unknown> }) => ({ anchor: res.body.found_anchor, oldest: res.body.found_oldest, newest: res.body.found_newest });

  t.test('newest', async (t) => {
    const res = await get({ anchor: 'newest', num_before: 3, num_after: 5 });
    t.equal(res.status, 200, 'ok');
    t.same(ids(res), g.slice(7), 'the last three');
    t.equal(res.body.anchor, NEWEST, 'anchor reported as the reference does');
    t.same(found(res), { anchor: false, oldest: false, newest: true }, 'found_newest');
    t.equal(res.body.history_limited, false, 'history_limited');
  });

  t.test('oldest', async (t) => {
    const res = await get({ anchor: 'oldest', num_before: 3, num_after: 3 });
    t.same(ids(res), g.slice(0, 3), 'the first three');
    t.equal(res.body.anchor, 0, 'anchor 0');
    t.same(found(res), { anchor: false, oldest: true, newest: false }, 'found_oldest');
    const everything = await get({ anchor: 'oldest', num_after: 100 });
    t.same(ids(everything), g, 'everything');
    t.same(found(everything), { anchor: false, oldest: true, newest: true }, 'both ends');
  });

  t.test('an id in the middle', async (t) => {
    const res = await get({ anchor: g[5], num_before: 2, num_after: 2 });
    t.same(ids(res), g.slice(3, 8), 'two each side and the anchor');
    t.same(found(res), { anchor: true, oldest: false, newest: false }, 'neither end');
    t.equal(res.body.anchor, g[5], 'anchor echoed');
    const asText = await get({ anchor: String(g[5]), num_before: 0, num_after: 0 });
    t.same(ids(asText), [g[5]], 'just the anchor');
    t.equal(asText.body.found_anchor, true, 'found it');
  });

  t.test('include_anchor', async (t) => {
    const after = await get({ anchor: g[5], include_anchor: false, num_before: 0, num_after: 2 });
    t.same(ids(after), [g[6], g[7]], 'after, without the anchor');
    t.equal(after.body.found_anchor, false, 'found_anchor false when excluded');
    const before = await get({ anchor: g[5], include_anchor: false, num_before: 2, num_after: 0 });
    t.same(ids(before), [g[3], g[4]], 'before, without the anchor');
    const both = await get({ anchor: g[5], include_anchor: false, num_before: 1, num_after: 1 });
    t.equal(both.status, 400, 'both sides without the anchor is refused');
    t.equal(both.body.msg, 'The anchor can only be excluded at an end of the range', 'reference message');
  });

  t.test('ends', async (t) => {
    const first = await get({ anchor: g[0], num_before: 5, num_after: 0 });
    t.same(ids(first), [g[0]], 'nothing before the first');
    t.same(found(first), { anchor: true, oldest: true, newest: false }, 'found_oldest at the start');
    const last = await get({ anchor: g[9], num_before: 0, num_after: 5 });
    t.same(ids(last), [g[9]], 'nothing after the last');
    t.same(found(last), { anchor: true, oldest: false, newest: true }, 'found_newest at the end');
    const missing = await get({ anchor: g[9] + 1000, num_before: 2, num_after: 0 });
    t.same(ids(missing), [g[8], g[9]], 'an anchor past the end');
    t.same(found(missing), { anchor: false, oldest: false, newest: false }, 'with num_after 0, found_newest stays false as in the reference');
    const huge = await get({ anchor: '99999999999999999999', num_before: 1 });
    t.equal(huge.body.anchor, NEWEST, 'a huge anchor is the newest');
    const negative = await get({ anchor: '-5', num_after: 1 });
    t.same(ids(negative), [g[0]], 'a negative anchor is the oldest');
  });

  t.test('a narrow of the topic pages within it', async (t) => {
    const topic = JSON.stringify([{ operator: 'channel', operand: 'general' }, { operator: 'topic', operand: 't1' }]);
    const res = await asAnn('GET', '/messages', { params: { narrow: topic, anchor: g[4], num_before: 1, num_after: 1 } });
    t.same(ids(res), [g[3], g[5]], 'the neighbours in the topic; the anchor is not in it');
    t.equal(res.body.found_anchor, false, 'anchor not found in the narrow');
  });

  t.test('first_unread', async (t) => {
    await asAnn('POST', '/messages/flags', { params: { messages: g.slice(0, 4), op: 'add', flag: 'read' } });
    const res = await get({ anchor: 'first_unread', num_before: 1, num_after: 1 });
    t.equal(res.body.anchor, g[4], 'the oldest unread');
    t.same(ids(res), [g[3], g[4], g[5]], 'around it');
    const legacy = await get({ use_first_unread_anchor: true, num_before: 0, num_after: 1 });
    t.equal(legacy.body.anchor, g[4], 'use_first_unread_anchor still works');
    await asAnn('POST', '/mark_all_as_read');
    const none = await get({ anchor: 'first_unread', num_before: 2, num_after: 2 });
    t.equal(none.body.anchor, NEWEST, 'nothing unread: the newest');
    t.same(ids(none), [g[8], g[9]], 'the newest messages');
    t.equal(none.body.found_newest, true, 'found_newest');
  });

  t.test('errors and limits', async (t) => {
    const missing = await get({ num_before: 1 });
    t.same(missing.body, { result: 'error', msg: "Missing 'anchor' argument.", code: 'BAD_REQUEST' }, 'anchor is needed');
    const bad = await get({ anchor: 'later', num_before: 1 });
    t.equal(bad.body.msg, 'Invalid anchor', 'bad anchor');
    const many = await get({ anchor: 'newest', num_before: 4000, num_after: 1001 });
    t.same(many.body, { result: 'error', msg: 'Too many messages requested (maximum 5000).', code: 'BAD_REQUEST' }, 'over 5000');
    const max = await get({ anchor: 'newest', num_before: 5000, num_after: 0 });
    t.equal(max.status, 200, 'exactly 5000 is fine');
    const negative = await get({ anchor: 'newest', num_before: -1 });
    t.equal(negative.body.code, 'REQUEST_VARIABLE_INVALID', 'negative counts are refused');
  });

  t.test('message_ids', async (t) => {
    const res = await asAnn('GET', '/messages', { params: { message_ids: JSON.stringify([g[3], g[1], 999999]) } });
    t.equal(res.status, 200, 'ok');
    t.same(ids(res), [g[1], g[3]], 'the ones that exist, ascending');
    t.same(found(res), { anchor: false, oldest: false, newest: false }, 'found_* false');
    t.notOk('anchor' in res.body, 'no anchor');
    const narrowed = await asAnn('GET', '/messages', { params: { message_ids: JSON.stringify([g[1], g[2]]), narrow: JSON.stringify([{ operator: 'topic', operand: 't0' }]) } });
    t.same(ids(narrowed), [g[2]], 'filtered by the narrow');
    const mixed = await asAnn('GET', '/messages', { params: { message_ids: JSON.stringify([g[1]]), anchor: 'newest' } });
    t.equal(mixed.status, 400, 'message_ids with a range is refused');
    t.match(mixed.body.msg, /^Unsupported parameter combination: num_before, num_after, anchor, message_ids/, 'reference message');
  });

  t.test('message fields and options', async (t) => {
    const empty = await ts.as(bob)('POST', '/messages', { params: { type: 'stream', to: 'general', topic: '', content: '**bold**' } });
    const one = (extra: Record<string, unknown>) => get({ anchor: empty.body.id, num_before: 0, num_after: 0, ...extra });
    const plain = await one({});
    const msg = plain.body.messages[0];
    t.match(msg, { id: empty.body.id, type: 'stream', sender_id: bob.userId, subject: 'general chat', content_type: 'text/html' }, 'the reference shape');
    t.same(msg.flags, [], 'unread, no flags');
    t.match(msg.content, /^<p>.*bold.*<\/p>$/, 'rendered HTML');
    const raw = await one({ apply_markdown: false, allow_empty_topic_name: true });
    t.equal(raw.body.messages[0].content, '**bold**', 'apply_markdown=false');
    t.equal(raw.body.messages[0].subject, '', 'allow_empty_topic_name');
    const read = await get({ anchor: g[0], num_before: 0, num_after: 0 });
    t.same(read.body.messages[0].flags, ['read'], 'read flag shown');
  });
});
