import t from 'tap';
import { startWorld, subscribe, type Person } from '../streams/world.js';

t.test('GET /messages/matches_narrow', async (t) => {
  const w = await startWorld(t);
  const { hamlet, othello, polonius } = w.root;
  const send = async (who: Person, params: Record<string, unknown>) => (await w.as(who)('POST', '/messages', { params: { type: 'stream', to: 'general', ...params } })).body.id as number;
  const matches = (who: Person, msg_ids: number[], narrow: unknown) => w.as(who)('GET', '/messages/matches_narrow', { params: { msg_ids, narrow } });

  const plain = await send(othello, { topic: 'Cats', content: 'I like **cats**' });
  const other = await send(othello, { topic: 'Dogs', content: 'dogs are fine' });
  const empty = await send(othello, { topic: '', content: 'no topic <here>' });
  await subscribe(w.as(othello), ['lounge']);
  const unseen = await send(othello, { to: 'lounge', topic: 'Cats', content: 'cats in the lounge' });

  const byTopic = await matches(hamlet, [plain, other, empty, unseen, 999999], [{ operator: 'topic', operand: 'cats' }]);
  t.same(byTopic.body, {
    result: 'success',
    msg: '',
    messages: { [plain]: { match_content: '<p>I like <strong>cats</strong></p>', match_subject: 'Cats' } },
  }, 'only the matching messages the user has, with their content and topic');
  t.same(Object.keys((await matches(othello, [plain, unseen], [{ operator: 'topic', operand: 'cats' }])).body.messages), [String(plain), String(unseen)], 'what one user has another may not');
  t.same(Object.keys((await matches(hamlet, [unseen], [])).body.messages), [], "a public channel's message the user never received does not count, as in the reference");

  const search = await matches(hamlet, [plain, other], [{ operator: 'search', operand: 'cats' }]);
  t.same(search.body.messages, {
    [plain]: { match_content: '<p>I like <strong><span class="highlight">cats</span></strong></p>', match_subject: '<span class="highlight">Cats</span>' },
  }, 'a search highlights, as GET /messages does');
  const noTopic = await matches(hamlet, [empty], [{ operator: 'channel', operand: 'general' }]);
  t.same(noTopic.body.messages[empty].match_subject, 'general chat', 'the empty topic reads as its display name');

  t.match((await matches(hamlet, [plain], [{ operator: 'bogus', operand: 'x' }])).body, { code: 'BAD_NARROW' }, 'a bad narrow');
  t.match((await w.as(hamlet)('GET', '/messages/matches_narrow', { params: { narrow: [] } })).body, { code: 'REQUEST_VARIABLE_MISSING', var_name: 'msg_ids' }, 'no ids');
  t.match((await w.as(hamlet)('GET', '/messages/matches_narrow', { params: { msg_ids: [plain] } })).body, { code: 'REQUEST_VARIABLE_MISSING', var_name: 'narrow' }, 'no narrow');
  t.same((await matches(polonius, [plain], [{ operator: 'is', operand: 'unread' }])).body.messages[plain] !== undefined, true, 'a guest, in their channel');
  t.same((await w.asOther(w.other.owner)('GET', '/messages/matches_narrow', { params: { msg_ids: [plain], narrow: [] } })).body.messages, {}, "another realm's messages never match");
});
