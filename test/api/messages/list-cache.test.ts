import t from 'tap';
import { createUser, startTestServer } from '../../helpers/server.js';

/**
 * GET /messages serves channel messages from cached JSON (api/messages/views.ts). Whatever
 * changes a message's view after it was cached must show in the next read.
 */
t.test('GET /messages: cached message views follow every change', async (t) => {
  const ts = await startTestServer(t);
  const ann = await createUser(ts, 'ann@example.com', 'Ann');
  const bob = await createUser(ts, 'bob@example.com', 'Bob');
  const asAnn = ts.as(ann);
  const asBob = ts.as(bob);
  const sent = await asAnn('POST', '/messages', { params: { type: 'stream', to: 'general', topic: 'ticket #42', content: 'first' } });
  const id = sent.body.id as number;
  const channel = (await asBob('GET', '/get_stream_id', { params: { stream: 'general' } })).body.stream_id as number;
  const narrow = JSON.stringify([{ operator: 'channel', operand: channel }, { operator: 'topic', operand: 'ticket #42' }]);
  const read = async (as = asBob, params: Record<string, unknown> = {}) => {
    const res = await as('GET', '/messages', { params: { anchor: 'newest', num_before: 10, num_after: 0, narrow, ...params } });
    t.equal(res.status, 200, 'GET /messages succeeds');
    return res.body.messages.find((m: { id: number }) => m.id === id);
  };

  const first = await read();
  t.same(first.flags, [], 'unread for Bob at first');
  t.same(first.topic_links, [], 'no topic links without linkifiers');

  await asBob('POST', '/messages/flags', { params: { messages: JSON.stringify([id]), op: 'add', flag: 'starred' } });
  t.same((await read()).flags, ['starred'], "Bob's new flag shows");
  t.same((await read(asAnn)).flags, [], "and only Bob's: Ann's view of the same message has no star");

  await asBob('POST', `/messages/${id}/reactions`, { params: { emoji_name: 'octopus' } });
  t.equal((await read()).reactions.length, 1, 'a reaction shows');

  await asAnn('PATCH', `/messages/${id}`, { params: { content: 'second' } });
  t.match((await read()).content, /second/, 'an edit shows');

  const link = await ts.request('POST', '/realm/filters', { params: { pattern: '#(?P<id>[0-9]+)', url_template: 'https://tracker.example.com/{id}' } });
  t.equal(link.status, 200, 'a linkifier is added');
  t.same((await read()).topic_links, [{ text: '#42', url: 'https://tracker.example.com/42' }], 'topic links follow the new linkifier');

  const renamed = await asAnn('PATCH', '/settings', { params: { full_name: 'Ann Renamed' } });
  t.equal(renamed.status, 200, 'the sender renames herself');
  t.equal((await read()).sender_full_name, 'Ann Renamed', 'the new sender name shows');

  const moved = await ts.request('PATCH', `/streams/${channel}`, { params: { new_name: 'lobby' } });
  t.equal(moved.status, 200, 'the channel is renamed');
  t.equal((await read()).display_recipient, 'lobby', 'the new channel name shows');

  t.match((await read(asBob, { apply_markdown: false })).content, 'second', 'another option set gets its own view');
  t.equal((await read(asBob, { apply_markdown: false })).content_type, 'text/x-markdown', 'with its own content type');
  t.equal((await read()).content_type, 'text/html', 'while the first is still right');
});
