import t from 'tap';
import { createUser, startTestServer } from '../../helpers/server.js';

// POST /realm/test_welcome_bot_custom_message (Zulip 11), as the reference's API test suite
// calls it (python_examples.test_welcome_bot_custom_message).
t.test('POST /realm/test_welcome_bot_custom_message', async (t) => {
  const ts = await startTestServer(t);
  const ann = await createUser(ts, 'ann@example.com', 'Ann');

  t.test('an administrator gets the text from Welcome Bot', async (t) => {
    const res = await ts.request('POST', '/realm/test_welcome_bot_custom_message', { params: { welcome_message_custom_text: 'Custom Welcome Message Text' } });
    t.equal(res.status, 200, '200 with the message id');
    const id = res.body.welcome_bot_custom_message_id;
    const msg = await ts.request('GET', `/messages/${id}`);
    t.equal(msg.status, 200, 'the owner can read it');
    t.match(msg.body.message, { type: 'private', sender_email: 'welcome-bot@zulip.com', content: '<p>Custom Welcome Message Text</p>' }, 'a direct message from Welcome Bot, rendered');
    t.same(msg.body.message.display_recipient.map((r: any) => r.id).sort(), [msg.body.message.sender_id, ts.owner.userId].sort(), 'between Welcome Bot and the administrator');
    const settings = await ts.request('POST', '/register', { params: { fetch_event_types: ['realm'] } });
    t.equal(settings.body.realm_welcome_message_custom_text ?? '', '', 'the organization\'s own text is not changed');
  });

  t.test('errors', async (t) => {
    const member = await ts.as(ann)('POST', '/realm/test_welcome_bot_custom_message', { params: { welcome_message_custom_text: 'Hi' } });
    t.same([member.status, member.body.msg], [400, 'Must be an organization administrator'], 'administrators only');
    const empty = await ts.request('POST', '/realm/test_welcome_bot_custom_message', { params: { welcome_message_custom_text: '  ' } });
    t.same([empty.status, empty.body.msg], [400, 'Welcome message cannot be empty.'], 'an empty text');
    const missing = await ts.request('POST', '/realm/test_welcome_bot_custom_message', { params: {} });
    t.same([missing.status, missing.body.code], [400, 'REQUEST_VARIABLE_MISSING'], 'the text is required');
    const long = await ts.request('POST', '/realm/test_welcome_bot_custom_message', { params: { welcome_message_custom_text: 'x'.repeat(8001) } });
    t.equal(long.status, 400, 'over 8000 characters');
    const annMessages = await ts.as(ann)('GET', '/messages', { params: { anchor: 'newest', num_before: 50, num_after: 0, narrow: [{ operator: 'sender', operand: 'welcome-bot@zulip.com' }] } });
    t.notOk(annMessages.body.messages?.some((m: any) => m.content.includes('Hi')), 'the member got nothing');
  });
});
