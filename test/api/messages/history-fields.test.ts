import t from 'tap';
import { htmlDiff } from '../../../src/api/messages/edit-diff.js';
import { startWorld } from './edit-world.js';

t.test('GET /messages/{id}/history: the snapshots', async (t) => {
  const w = await startWorld(t);
  const ann = await w.user('Ann');
  const bob = await w.user('Bob');
  const general = w.realm.streamByName('general')!;
  const dest = await w.channel(ann, 'dest', { members: [bob] });
  const history = async (id: number, params: Record<string, unknown> = {}) => (await w.call(bob, 'messages.history', { message_id: id, ...params })).body.message_history;
  const quiet = { send_notification_to_new_thread: false };

  t.test('GET /messages/{id}/history: an unedited message has one snapshot', async (t) => {
    const id = await w.send(ann, 'general', 'plain', 'just this');
    const res = await w.call(bob, 'messages.history', { message_id: id });
    t.equal(res.status, 200, 'answered');
    t.same(res.body.message_history, [{ content: 'just this', rendered_content: '<p>just this</p>', timestamp: w.stored(id)!.timestamp, topic: 'plain', user_id: ann.id }], 'the original');
  });

  t.test('GET /messages/{id}/history: oldest first, each with the values after it and what it changed', async (t) => {
    const id = await w.send(ann, 'general', 'draft', 'version one');
    await w.edit(ann, id, { content: 'version two' });
    await w.edit(bob, id, { topic: 'final', ...quiet });
    await w.edit(ann, id, { stream_id: dest.id, ...quiet });
    await w.edit(ann, id, { content: 'version three' });
    const h = await history(id);
    t.equal(h.length, 5, 'the original and four edits');
    t.match(h[0], { content: 'version one', topic: 'draft', user_id: ann.id }, 'the original');
    t.notOk('prev_content' in h[0], 'which changed nothing');
    t.match(h[1], { content: 'version two', rendered_content: '<p>version two</p>', prev_content: 'version one', prev_rendered_content: '<p>version one</p>', topic: 'draft', user_id: ann.id }, 'the first content edit');
    t.match(h[1].content_html_diff, /highlight_text_inserted">two/, 'with an HTML diff');
    t.match(h[2], { content: 'version two', topic: 'final', prev_topic: 'draft', user_id: bob.id }, 'the rename, by Bob');
    t.notOk('prev_content' in h[2], 'which changed no content');
    t.match(h[3], { topic: 'final', prev_stream: general.id, stream: dest.id }, 'the channel move');
    t.match(h[4], { content: 'version three', prev_content: 'version two' }, 'the last edit');
    t.ok(h.every((e: { timestamp: number }, i: number) => i === 0 || e.timestamp >= h[i - 1].timestamp), 'timestamps ascend');
  });

  t.test('GET /messages/{id}/history: allow_empty_topic_name', async (t) => {
    const id = await w.send(ann, 'general', 'named', 'x');
    await w.edit(ann, id, { topic: '', ...quiet });
    const shown = await history(id);
    t.match(shown[1], { topic: 'general chat', prev_topic: 'named' }, 'the empty topic shows as its display name by default');
    const raw = await history(id, { allow_empty_topic_name: true });
    t.match(raw[1], { topic: '', prev_topic: 'named' }, 'and as the empty string to clients that allow it');
  });

  t.test('GET /messages/{id}/history: direct messages have no topic', async (t) => {
    const id = await w.dm(ann, [bob], 'dm one');
    await w.edit(ann, id, { content: 'dm two' });
    const h = await history(id);
    t.same(h.map((e: { topic: string }) => e.topic), ['', ''], 'an empty topic throughout');
  });

  t.test('content_html_diff marks insertions and deletions inside the new markup', async (t) => {
    t.equal(htmlDiff('<p>Hello!</p>', '<p>Howdy!</p>'), '<div><p><span class="highlight_text_inserted">Howdy!</span><span class="highlight_text_deleted">Hello!</span></p></div>', 'a replaced word');
    t.equal(htmlDiff('<p>a b</p>', '<p>a b c</p>'), '<div><p>a b<span class="highlight_text_inserted"> c</span></p></div>', 'an appended word');
    t.equal(htmlDiff('<p>same</p>', '<p>same</p>'), '<div><p>same</p></div>', 'no change, no highlight');
  });
});
