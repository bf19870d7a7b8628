import t from 'tap';
import { createUser, startTestServer } from '../../helpers/server.js';

t.test('reactions: invalid emoji and parameters', async (t) => {
  const ts = await startTestServer(t);
  const ann = await createUser(ts, 'ann@example.com', 'Ann');
  const asAnn = ts.as(ann);
  const sent = await asAnn('POST', '/messages', { params: { type: 'stream', to: 'general', topic: 'errors', content: 'hello' } });
  const path = `/messages/${sent.body.id}/reactions`;
  const error = (msg: string) => ({ result: 'error', msg, code: 'BAD_REQUEST' });

  t.test('POST /messages/{message_id}/reactions: refuses emoji that do not exist or do not match', async (t) => {
    const cases: [Record<string, unknown>, string, string][] = [
      [{ emoji_name: 'no_such_emoji' }, "Emoji 'no_such_emoji' does not exist", 'an unknown name'],
      [{ emoji_name: 'octopus', emoji_code: 'ffff0', reaction_type: 'unicode_emoji' }, 'Invalid emoji code.', 'an unknown code'],
      [{ emoji_name: 'Not an emoji!', emoji_code: '1f419', reaction_type: 'unicode_emoji' }, 'Invalid emoji name.', 'a name that is no emoji name'],
      [{ emoji_name: 'octopus', emoji_code: '1f419', reaction_type: 'animal_emoji' }, 'Invalid emoji type.', 'an unknown type'],
      [{ emoji_name: 'party_parrot', emoji_code: '1', reaction_type: 'realm_emoji' }, 'Invalid custom emoji.', 'a custom emoji that does not exist'],
      [{ emoji_name: 'zulip', emoji_code: 'zulipp', reaction_type: 'zulip_extra_emoji' }, 'Invalid emoji code.', 'a wrong extra emoji code'],
      [{ emoji_name: 'octopus', emoji_code: 'zulip', reaction_type: 'zulip_extra_emoji' }, 'Invalid emoji name.', 'a wrong extra emoji name'],
    ];
    for (const [params, msg, what] of cases) {
      const res = await asAnn('POST', path, { params });
      t.same(res.body, error(msg), `${what}: ${msg}`);
    }
    const missing = await asAnn('POST', path, { params: { emoji_code: '1f419' } });
    t.equal(missing.body.code, 'REQUEST_VARIABLE_MISSING', 'emoji_name is required to add');
    t.equal(missing.body.var_name, 'emoji_name', 'and named');
    const got = await asAnn('GET', `/messages/${sent.body.id}`);
    t.same(got.body.message.reactions, [], 'no reaction was added');
  });

  t.test('DELETE /messages/{message_id}/reactions: needs a name or a code', async (t) => {
    const res = await asAnn('DELETE', path, { params: {} });
    t.same(res.body, error('At least one of the following arguments must be present: emoji_name, emoji_code'), 'neither given');
    const unknown = await asAnn('DELETE', path, { params: { emoji_name: 'no_such_emoji' } });
    t.same(unknown.body, error("Emoji 'no_such_emoji' does not exist"), 'an unknown name');
  });

  t.test('reactions: a bad message id', async (t) => {
    const none = await asAnn('POST', '/messages/999999/reactions', { params: { emoji_name: 'octopus' } });
    t.same(none.body, error('Invalid message(s)'), 'a message that does not exist: Invalid message(s)');
    const text = await asAnn('POST', '/messages/abc/reactions', { params: { emoji_name: 'octopus' }, unchecked: true });
    // The reference's URL takes <int:message_id>: any other path is no endpoint at all.
    t.same([text.status, text.body.msg], [404, 'Not Found'], 'a message id that is not a number names no endpoint');
  });
});
