import t from 'tap';
import { createUser, startTestServer } from '../../helpers/server.js';

/** The search operator: word search over content and topic, with the reference's highlights. */
t.test('GET /messages: search', async (t) => {
  const ts = await startTestServer(t);
  const ann = await createUser(ts, 'ann@example.com', 'Ann');
  const bob = await createUser(ts, 'bob@example.com', 'Bob');
  const asAnn = ts.as(ann);
  const send = async (params: Record<string, unknown>) => (await ts.as(bob)('POST', '/messages', { params })).body.id as number;
  const coffee = await send({ type: 'stream', to: 'general', topic: 'Coffee machine', content: 'The new coffee machine is broken' });
  const tea = await send({ type: 'stream', to: 'general', topic: 'kitchen', content: 'Tea & coffee <b>tonight</b>' });
  const dm = await send({ type: 'direct', to: [ann.userId], content: 'Coffee later?' });
  const phrase = await send({ type: 'stream', to: 'general', topic: 'kitchen', content: 'machine for coffee' });
  const letter = await send({ type: 'stream', to: 'general', topic: 'alphabet', content: 'p is a letter' });

  const search = async (narrow: unknown[]) => {
    const res = await asAnn('GET', '/messages', { params: { anchor: 'newest', num_before: 100, narrow: JSON.stringify(narrow) } });
    if (res.status !== 200) throw new Error(JSON.stringify(res.body));
    return res.body.messages as Record<string, any>[];
  };
  const ids = (msgs: Record<string, any>[]) => msgs.map((m) => m.id);
  const term = (operand: string, negated = false) => ({ operator: 'search', operand, negated });

  t.test('words are case-insensitive and ANDed', async (t) => {
    t.same(ids(await search([term('COFFEE')])), [coffee, tea, dm, phrase], 'one word, content or topic, DMs included');
    t.same(ids(await search([term('coffee machine')])), [coffee, phrase], 'two words, anywhere');
    t.same(ids(await search([term('coffee'), term('broken')])), [coffee], 'several search terms combine');
    t.same(ids(await search([term('coffee', false), term('machine', true)])), [tea, dm], 'a negated search excludes');
    t.same(ids(await search([term('nothing-like-this')])), [], 'no match');
    t.same(ids(await search([term('the')])), [], 'a query of stop words only matches nothing');
    t.same(ids(await search([term('the coffee')])), [coffee, tea, dm, phrase], 'stop words are ignored among others');
  });

  t.test('quoted phrases match as written', async (t) => {
    t.same(ids(await search([term('"coffee machine"')])), [coffee], 'the phrase, not just the words');
  });

  t.test('highlights', async (t) => {
    const [msg] = await search([{ operator: 'id', operand: coffee }, term('coffee')]);
    t.equal(msg.match_content, '<p>The new <span class="highlight">coffee</span> machine is broken</p>', 'match_content wraps the word in the rendered HTML');
    t.equal(msg.match_subject, '<span class="highlight">Coffee</span> machine', 'match_subject wraps it in the topic');
    const [html] = await search([{ operator: 'id', operand: tea }, term('tonight coffee')]);
    t.match(html.match_content, /<span class="highlight">tonight<\/span>/, 'text among character references is highlighted');
    t.match(html.match_content, /&amp;/, 'character references are kept');
    const [p] = await search([{ operator: 'id', operand: letter }, term('p')]);
    t.equal(p.match_content, '<p><span class="highlight">p</span> is a letter</p>', 'tags are not highlighted, only text');
    t.equal(html.match_subject, 'kitchen', 'a topic without the word is shown escaped, unhighlighted');
    const [direct] = await search([{ operator: 'id', operand: dm }, term('coffee')]);
    t.equal(direct.match_subject, '', 'direct messages have no topic');
    const plain = await search([{ operator: 'id', operand: coffee }]);
    t.notOk('match_content' in plain[0], 'no highlights without search');
  });

  t.test('search combines with other operators and flags', async (t) => {
    await asAnn('POST', '/messages/flags', { params: { messages: [phrase], op: 'add', flag: 'starred' } });
    t.same(ids(await search([{ operator: 'is', operand: 'starred' }, term('coffee')])), [phrase], 'is:starred and search');
    t.same(ids(await search([{ operator: 'topic', operand: 'kitchen' }, term('coffee')])), [tea, phrase], 'topic and search');
    t.same(ids(await search([{ operator: 'is', operand: 'dm' }, term('coffee')])), [dm], 'is:dm and search');
  });

  t.test('the index follows edits and deletions', async (t) => {
    const id = await send({ type: 'stream', to: 'general', topic: 'drafts', content: 'original wording' });
    t.same(ids(await search([term('original')])), [id], 'found by its words');
    const edit = await ts.as(bob)('PATCH', `/messages/${id}`, { params: { content: 'revised wording' } });
    t.equal(edit.status, 200, 'edited');
    t.same(ids(await search([term('original')])), [], 'the old word is gone');
    t.same(ids(await search([term('revised')])), [id], 'the new word is found');
    const moved = await ts.as(bob)('PATCH', `/messages/${id}`, { params: { topic: 'final', send_notification_to_new_thread: false, send_notification_to_old_thread: false } });
    t.equal(moved.status, 200, 'moved to another topic');
    t.same(ids(await search([term('drafts')])), [], 'the old topic word is gone');
    t.same(ids(await search([term('final wording')])), [id], 'the new topic is searchable');
    const gone = await ts.as(bob)('DELETE', `/messages/${id}`);
    t.equal(gone.status, 200, 'deleted');
    t.same(ids(await search([term('revised')])), [], 'a deleted message is not found');
  });

  t.test('paging through search results', async (t) => {
    const res = await asAnn('GET', '/messages', { params: { anchor: dm, num_before: 1, num_after: 1, narrow: JSON.stringify([term('coffee')]) } });
    t.same(ids(res.body.messages), [tea, dm, phrase], 'neighbours among the matches');
    t.same([res.body.found_oldest, res.body.found_newest], [false, false], 'a full page on each side does not claim either end');
  });
});
