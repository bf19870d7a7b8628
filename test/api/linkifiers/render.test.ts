import t from 'tap';
import { createUser, startTestServer } from '../../helpers/server.js';

const ISSUE = 'https://github.com/zulip/zulip/issues/2468';

t.test('linkifiers in messages and topics', async (t) => {
  const ts = await startTestServer(t);
  const ann = await createUser(ts, 'ann@example.com', 'Ann');
  const asAnn = ts.as(ann);
  const send = async (topic: string, content: string) => {
    const res = await asAnn('POST', '/messages', { params: { type: 'stream', to: 'general', topic, content } });
    if (res.status !== 200) throw new Error(JSON.stringify(res.body));
    return res.body.id as number;
  };
  const read = async (id: number) => (await asAnn('GET', `/messages/${id}`)).body.message;

  await t.test('before any linkifier, #2468 stays text', async (t) => {
    const msg = await read(await send('fix #2468', 'see #2468'));
    t.equal(msg.content, '<p>see #2468</p>', 'plain text');
    t.same(msg.topic_links, [], 'no topic links');
  });

  const added = await ts.request('POST', '/realm/filters', { params: { pattern: '#(?P<id>[0-9]+)', url_template: 'https://github.com/zulip/zulip/issues/{id}' } });

  t.test('POST /messages then GET /messages/{id}: the content links the match', async (t) => {
    t.equal(added.status, 200, 'linkifier added');
    const msg = await read(await send('linkifier test', 'Please look at #2468 today.'));
    t.equal(msg.content, `<p>Please look at <a href="${ISSUE}">#2468</a> today.</p>`, "the reference's link HTML");
  });

  t.test('a topic containing #2468 has topic_links', async (t) => {
    const msg = await read(await send('fix #2468 soon', 'topic test'));
    t.same(msg.topic_links, [{ text: '#2468', url: ISSUE }], 'topic_links [{text, url}]');
  });

  t.test('not inside a word, and every match in order', async (t) => {
    const msg = await read(await send('two #1 and #2', 'abc#123 and #1, #22'));
    t.equal(msg.content, '<p>abc#123 and <a href="https://github.com/zulip/zulip/issues/1">#1</a>, <a href="https://github.com/zulip/zulip/issues/22">#22</a></p>', 'only standalone matches');
    t.same(msg.topic_links, [
      { text: '#1', url: 'https://github.com/zulip/zulip/issues/1' },
      { text: '#2', url: 'https://github.com/zulip/zulip/issues/2' },
    ], 'both topic matches, by position');
  });

  t.test('POST /messages/render uses the linkifiers too', async (t) => {
    const res = await asAnn('POST', '/messages/render', { params: { content: '#2468' } });
    t.equal(res.body.rendered, `<p><a href="${ISSUE}">#2468</a></p>`, 'rendered with the link');
  });

  t.test('the order decides overlaps, and edits apply to later messages', async (t) => {
    const jira = await ts.request('POST', '/realm/filters', { params: { pattern: '#(?P<id>[0-9]{4})', url_template: 'https://jira.example.com/{id}' } });
    let msg = await read(await send('order #2468', '#2468'));
    t.equal(msg.content, `<p><a href="${ISSUE}">#2468</a></p>`, 'the first linkifier wins');
    t.same(msg.topic_links, [{ text: '#2468', url: ISSUE }], 'in topics too');
    await ts.request('PATCH', '/realm/linkifiers', { params: { ordered_linkifier_ids: [jira.body.id, added.body.id] } });
    msg = await read(await send('order #2468', '#2468'));
    t.equal(msg.content, '<p><a href="https://jira.example.com/2468">#2468</a></p>', 'after reordering, the other wins');
    t.same(msg.topic_links, [{ text: '#2468', url: 'https://jira.example.com/2468' }], 'in topics too');
    await ts.request('PATCH', `/realm/filters/${jira.body.id}`, { params: { pattern: 'JIRA-(?P<id>[0-9]+)', url_template: 'https://jira.example.com/browse/{id}' } });
    msg = await read(await send('JIRA-7', 'JIRA-7 and #2468'));
    t.equal(msg.content, `<p><a href="https://jira.example.com/browse/7">JIRA-7</a> and <a href="${ISSUE}">#2468</a></p>`, 'the edited pattern and template apply');
    await ts.request('DELETE', `/realm/filters/${jira.body.id}`);
    await ts.request('DELETE', `/realm/filters/${added.body.id}`);
    msg = await read(await send('gone #2468', 'JIRA-7 and #2468'));
    t.equal(msg.content, '<p>JIRA-7 and #2468</p>', 'removed linkifiers no longer apply');
    t.same(msg.topic_links, [], 'nor in topics');
    // A topic whose links were worked out before the change (kept per realm: api/messages/render.ts).
    t.same((await read(await send('order #2468', 'again'))).topic_links, [], 'nor in a topic linked before');
  });
});
