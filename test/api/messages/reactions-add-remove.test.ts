import t from 'tap';
import { createUser, startTestServer } from '../../helpers/server.js';

t.test('POST and DELETE /messages/{message_id}/reactions', async (t) => {
  const ts = await startTestServer(t);
  const ann = await createUser(ts, 'ann@example.com', 'Ann');
  const bob = await createUser(ts, 'bob@example.com', 'Bob');
  const asAnn = ts.as(ann);
  const asBob = ts.as(bob);
  const sent = await asAnn('POST', '/messages', { params: { type: 'stream', to: 'general', topic: 'reactions', content: 'react to me' } });
  const id: number = sent.body.id;
  const reactions = async () => (await asAnn('GET', `/messages/${id}`)).body.message.reactions;

  t.test('POST /messages/{message_id}/reactions: a unicode emoji by name', async (t) => {
    const res = await asBob('POST', `/messages/${id}/reactions`, { params: { emoji_name: 'octopus' } });
    t.equal(res.status, 200, 'status 200');
    t.same(await reactions(), [{ emoji_name: 'octopus', emoji_code: '1f419', reaction_type: 'unicode_emoji', user_id: bob.userId }], 'shown in GET /messages/{id}');
  });

  t.test('POST /messages/{message_id}/reactions: the same reaction twice is REACTION_ALREADY_EXISTS', async (t) => {
    const res = await asBob('POST', `/messages/${id}/reactions`, { params: { emoji_name: 'octopus' } });
    t.same(res.body, { result: 'error', msg: 'Reaction already exists.', code: 'REACTION_ALREADY_EXISTS' }, 'reference error');
    t.equal((await reactions()).length, 1, 'nothing added');
  });

  t.test('POST /messages/{message_id}/reactions: name, code and type given (multipart, as zulip-js sends)', async (t) => {
    const res = await asAnn('POST', `/messages/${id}/reactions`, { params: { emoji_name: 'heart', emoji_code: '2764', reaction_type: 'unicode_emoji' }, encoding: 'multipart' });
    t.equal(res.status, 200, 'status 200');
    t.match(await reactions(), [{ emoji_name: 'octopus' }, { emoji_name: 'heart', emoji_code: '2764', user_id: ann.userId }], 'added after the first');
  });

  t.test('POST /messages/{message_id}/reactions: a vote for an existing emoji takes its name', async (t) => {
    // +1 and thumbs_up are two names of one emoji in the reference's table: the first reaction's name is kept.
    await asAnn('POST', `/messages/${id}/reactions`, { params: { emoji_name: '+1' } });
    const res = await asBob('POST', `/messages/${id}/reactions`, { params: { emoji_name: 'thumbs_up' } });
    t.equal(res.status, 200, 'status 200');
    const votes = (await reactions()).filter((r: { emoji_code: string }) => r.emoji_code === '1f44d');
    t.same(votes.map((r: { emoji_name: string; user_id: number }) => [r.emoji_name, r.user_id]), [['+1', ann.userId], ['+1', bob.userId]], 'both votes are named +1');
    const again = await asBob('POST', `/messages/${id}/reactions`, { params: { emoji_name: '+1' } });
    t.equal(again.body.code, 'REACTION_ALREADY_EXISTS', 'the same emoji under its other name is the same reaction');
  });

  t.test('POST /messages/{message_id}/reactions: the zulip extra emoji', async (t) => {
    const res = await asBob('POST', `/messages/${id}/reactions`, { params: { emoji_name: 'zulip' } });
    t.equal(res.status, 200, 'status 200');
    t.match((await reactions()).at(-1), { emoji_name: 'zulip', emoji_code: 'zulip', reaction_type: 'zulip_extra_emoji' }, 'type zulip_extra_emoji, code zulip');
  });

  t.test('DELETE /messages/{message_id}/reactions: by name, code or both', async (t) => {
    const byName = await asBob('DELETE', `/messages/${id}/reactions`, { params: { emoji_name: 'octopus' } });
    t.equal(byName.status, 200, 'by name: 200');
    const byCode = await asAnn('DELETE', `/messages/${id}/reactions`, { params: { emoji_code: '2764' } });
    t.equal(byCode.status, 200, 'by code alone (unicode_emoji assumed): 200');
    const extra = await asBob('DELETE', `/messages/${id}/reactions`, { params: { emoji_code: 'zulip', reaction_type: 'zulip_extra_emoji' } });
    t.equal(extra.status, 200, 'code and type: 200');
    t.same((await reactions()).map((r: { emoji_name: string; user_id: number }) => [r.emoji_name, r.user_id]), [['+1', ann.userId], ['+1', bob.userId]], 'only the +1 votes remain');
  });

  t.test('DELETE /messages/{message_id}/reactions: only one\'s own reaction, once', async (t) => {
    const res = await asBob('DELETE', `/messages/${id}/reactions`, { params: { emoji_name: 'octopus' } });
    t.same(res.body, { result: 'error', msg: "Reaction doesn't exist.", code: 'REACTION_DOES_NOT_EXIST' }, 'removed already: REACTION_DOES_NOT_EXIST');
    const notMine = await ts.request('DELETE', `/messages/${id}/reactions`, { params: { emoji_name: '+1' } });
    t.equal(notMine.body.code, 'REACTION_DOES_NOT_EXIST', 'the owner cannot remove the others\' votes');
    const removed = await asBob('DELETE', `/messages/${id}/reactions`, { params: { emoji_name: 'thumbs_up' } });
    t.equal(removed.status, 200, 'a vote is removed under any name of its emoji');
    t.same((await reactions()).map((r: { user_id: number }) => r.user_id), [ann.userId], 'Ann\'s vote stays');
  });

  t.test('POST /messages/{message_id}/reactions: the names of Zulip\'s own emoji table, with their codes', async (t) => {
    const other = (await asAnn('POST', '/messages', { params: { type: 'stream', to: 'general', topic: 'reactions', content: 'zulip names' } })).body.id as number;
    // As zulip-terminal sends them: names from the reference's table (src/markdown/tables), with their codes.
    for (const [name, code] of [['thumbs_up', '1f44d'], ['big_smile', '1f604'], ['cat', '1f408']]) {
      const res = await asBob('POST', `/messages/${other}/reactions`, { params: { emoji_name: name, emoji_code: code, reaction_type: 'unicode_emoji' } });
      t.equal(res.status, 200, `${name} (${code}) accepted`);
    }
    const got = (await asAnn('GET', `/messages/${other}`)).body.message.reactions.map((r: { emoji_name: string; emoji_code: string }) => [r.emoji_name, r.emoji_code]);
    t.same(got, [['thumbs_up', '1f44d'], ['big_smile', '1f604'], ['cat', '1f408']], 'kept under the names given');
    const removed = await asBob('DELETE', `/messages/${other}/reactions`, { params: { emoji_name: 'cat', emoji_code: '1f408', reaction_type: 'unicode_emoji' } });
    t.equal(removed.status, 200, 'and removed the same way');
  });

  t.test('POST /messages/{message_id}/reactions: the reference\'s names alone give the reference\'s codes', async (t) => {
    const other = (await asAnn('POST', '/messages', { params: { type: 'stream', to: 'general', topic: 'reactions', content: 'names alone' } })).body.id as number;
    const expected: [string, string][] = [['thumbs_up', '1f44d'], ['big_smile', '1f604'], ['check', '2705'], ['cat', '1f408'], ['smile', '1f642']];
    for (const [name] of expected) {
      const res = await asBob('POST', `/messages/${other}/reactions`, { params: { emoji_name: name } });
      t.equal(res.status, 200, `${name} accepted`);
    }
    const plus = await asAnn('POST', `/messages/${other}/reactions`, { params: { emoji_name: '+1' } });
    t.equal(plus.status, 200, '+1 accepted');
    const got = (await asAnn('GET', `/messages/${other}`)).body.message.reactions.map((r: { emoji_name: string; emoji_code: string; reaction_type: string }) => [r.emoji_name, r.emoji_code, r.reaction_type]);
    t.same(
      got,
      [...expected.map(([n, c]) => [n, c, 'unicode_emoji']), ['thumbs_up', '1f44d', 'unicode_emoji']],
      "each name's code from the table; +1 votes for thumbs_up (same code), under its name",
    );
  });
});
