import { request } from 'node:http';
import t from 'tap';
import { createUser, startTestServer } from '../../helpers/server.js';
import { fixture, lastMessage, postWebhook } from './post.js';

t.test('incoming webhooks: GitHub, JSON', async (t) => {
  const ts = await startTestServer(t);
  const created = await ts.request('POST', '/bots', { params: { full_name: 'GitHub Bot', short_name: 'gh', bot_type: 2, service_name: 'github' } });
  const key = created.body.api_key as string;
  const botId = created.body.user_id as number;
  await ts.request('POST', '/users/me/subscriptions', { params: { subscriptions: [{ name: 'github' }, { name: 'ops' }] } });
  const narrow = (stream: string, topic?: string) => [{ operator: 'channel', operand: stream }, ...(topic ? [{ operator: 'topic', operand: topic }] : [])];

  t.test('GitHub: push, pull request and issue, with the reference\'s texts and topics', async (t) => {
    const cases: [string, string, string, string][] = [
      [
        'push',
        'push__1_commit',
        'public-repo / changes',
        'baxterthehacker [pushed](https://github.com/baxterthehacker/public-repo/compare/9049f1265b7d...0d1a26e67d8f) 1 commit to branch changes.\n\n* Update README.md ([0d1a26e67d8](https://github.com/baxterthehacker/public-repo/commit/0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c))',
      ],
      [
        'pull_request',
        'pull_request__opened',
        'public-repo / PR #1 Update the README with new information',
        'baxterthehacker opened [PR #1](https://github.com/baxterthehacker/public-repo/pull/1) from `baxterthehacker:changes` to `baxterthehacker:master`:\n\n~~~ quote\nThis is a pretty simple change that we need to pull into master.\n~~~',
      ],
      [
        'issues',
        'issues',
        'public-repo / issue #2 Spelling error in the README file',
        "baxterthehacker opened [issue #2](https://github.com/baxterthehacker/public-repo/issues/2):\n\n~~~ quote\nIt looks like you accidentally spelled 'commit' with two 't's.\n~~~",
      ],
    ];
    for (const [event, name, topic, content] of cases) {
      const res = await postWebhook(ts, 'github', { api_key: key, stream: 'github' }, fixture('github', name), { 'X-GitHub-Event': event });
      t.same(res.body, { result: 'success', msg: '' }, `${event}: accepted`);
      const msg = await lastMessage(ts, narrow('github', topic));
      t.equal(msg?.content, content, `${event}: the reference's message in topic "${topic}"`);
      t.equal(msg?.sender_id, botId, `${event}: sent by the bot`);
      t.equal(msg?.client, 'ZulipGitHubWebhook', `${event}: from the webhook's client`);
    }
  });

  t.test('GitHub: a topic in the URL replaces the topic and adds the title', async (t) => {
    await postWebhook(ts, 'github', { api_key: key, stream: 'github', topic: 'notifications' }, fixture('github', 'issues'), { 'X-GitHub-Event': 'issues' });
    const msg = await lastMessage(ts, narrow('github', 'notifications'));
    t.match(msg.content, /^baxterthehacker opened \[issue #2 Spelling error in the README file\]\(https:\/\/github.com\/baxterthehacker\/public-repo\/issues\/2\):/, 'title in the link');
  });

  t.test('a JSON body sent as text/plain is read, as the reference reads any body', async (t) => {
    const res = await postWebhook(ts, 'github', { api_key: key, stream: 'github', topic: 'as text' }, fixture('github', 'issues'), { 'X-GitHub-Event': 'issues', 'content-type': 'text/plain; charset=utf-8' });
    t.same(res.body, { result: 'success', msg: '' }, 'accepted');
    const msg = await lastMessage(ts, narrow('github', 'as text'));
    t.match(msg?.content, /^baxterthehacker opened \[issue #2 Spelling error in the README file\]/, 'and posted');
    const elsewhere = await fetch(`http://127.0.0.1:${ts.port}/api/v1/users/me`, { method: 'GET', headers: { authorization: `Basic ${Buffer.from(`${ts.owner.email}:${ts.owner.apiKey}`).toString('base64')}` } });
    t.equal(elsewhere.status, 200, 'other routes are unchanged');
    const textPost = await fetch(`http://127.0.0.1:${ts.port}/api/v1/messages`, { method: 'POST', body: 'not parameters', headers: { 'content-type': 'text/plain', authorization: `Basic ${Buffer.from(`${ts.owner.email}:${ts.owner.apiKey}`).toString('base64')}` } });
    t.equal(textPost.status, 400, 'and an API route still ignores a text body (no parameters: 400)');
  });

  t.test('a body with no Content-Type, or another type, is read too (the reference reads any body)', async (t) => {
    // fetch gives a string body a text/plain type of its own: node:http sends the headers as given.
    const post = (path: string, body: Buffer, headers: Record<string, string>) =>
      new Promise<{ status: number; body: any }>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port: ts.port, method: 'POST', path, headers: { host: ts.server.config.externalHost, 'content-length': String(body.length), ...headers } }, (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (text += chunk));
          res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
        });
        req.on('error', reject);
        req.end(body);
      });
    const payload = Buffer.from(fixture('github', 'issues'));
    const query = (topic: string) => `/api/v1/external/github?${new URLSearchParams({ api_key: key, stream: 'github', topic })}`;
    const bare = await post(query('no type'), payload, { 'X-GitHub-Event': 'issues' });
    t.same(bare.body, { result: 'success', msg: '' }, 'no Content-Type: accepted');
    t.match((await lastMessage(ts, narrow('github', 'no type')))?.content, /^baxterthehacker opened \[issue #2 Spelling error in the README file\]/, 'and posted');
    const octets = await post(query('octets'), payload, { 'X-GitHub-Event': 'issues', 'content-type': 'application/octet-stream' });
    t.same(octets.body, { result: 'success', msg: '' }, 'application/octet-stream: accepted');
    t.match((await lastMessage(ts, narrow('github', 'octets')))?.content, /^baxterthehacker opened/, 'and posted');
    // Another bot: the owner's notice about it would hold back this bot's next one for a minute.
    const other = await ts.request('POST', '/bots', { params: { full_name: 'GitHub Two', short_name: 'gh2', bot_type: 2, service_name: 'github' } });
    const brokenPath = `/api/v1/external/github?${new URLSearchParams({ api_key: other.body.api_key as string, stream: 'github' })}`;
    const broken = await post(brokenPath, Buffer.from('{"action": '), { 'X-GitHub-Event': 'issues' });
    t.equal(broken.status, 400, 'a body with no type that is not JSON is refused');
    t.match(broken.body, { result: 'error', code: 'INVALID_JSON', msg: 'Malformed JSON' }, 'as the reference\'s InvalidJSONError');
    t.match((await lastMessage(ts, [{ operator: 'is', operand: 'dm' }]))?.content, /send data in the JSON format/, 'and the owner is told, as for any body that is not JSON');
    const auth = `Basic ${Buffer.from(`${ts.owner.email}:${ts.owner.apiKey}`).toString('base64')}`;
    const elsewhere = await post('/api/v1/messages', Buffer.from('type=stream&to=github&topic=x&content=hi'), { authorization: auth });
    t.equal(elsewhere.status, 400, 'an API route still reads no parameters from a body with no type');
  });

  t.test('GitHub: branches, only_events and exclude_events filter', async (t) => {
    const before = await lastMessage(ts, narrow('github'));
    const skipped = await postWebhook(ts, 'github', { api_key: key, stream: 'github', branches: 'master,main' }, fixture('github', 'push__1_commit'), { 'X-GitHub-Event': 'push' });
    t.equal(skipped.body.result, 'success', 'a push to another branch is accepted');
    const excluded = await postWebhook(ts, 'github', { api_key: key, stream: 'github', exclude_events: JSON.stringify(['push_*']) }, fixture('github', 'push__1_commit'), { 'X-GitHub-Event': 'push' });
    t.equal(excluded.body.result, 'success', 'an excluded event is accepted');
    const only = await postWebhook(ts, 'github', { api_key: key, stream: 'github', only_events: JSON.stringify(['issues']) }, fixture('github', 'push__1_commit'), { 'X-GitHub-Event': 'push' });
    t.equal(only.body.result, 'success', 'an event outside only_events is accepted');
    t.equal((await lastMessage(ts, narrow('github'))).id, before.id, 'and none of them posts anything');
  });

  t.test('GitHub: unsupported events and a missing event header', async (t) => {
    const unsupported = await postWebhook(ts, 'github', { api_key: key, stream: 'github' }, JSON.stringify({ action: 'frobnicated', sender: { login: 'x' } }), { 'X-GitHub-Event': 'frobnicate' });
    t.equal(unsupported.status, 200, 'the reference answers unsupported events with 200');
    t.same(unsupported.body, { result: 'success', msg: "The 'frobnicate:frobnicated' event isn't currently supported by the GitHub webhook; ignoring", code: 'UNSUPPORTED_WEBHOOK_EVENT_TYPE', webhook_name: 'GitHub', event_type: 'frobnicate:frobnicated' }, 'with its error');
    const missing = await postWebhook(ts, 'github', { api_key: key, stream: 'github' }, fixture('github', 'issues'));
    t.same(missing.body, { result: 'error', msg: "Missing the HTTP event header 'X-GitHub-Event'", code: 'MISSING_HTTP_EVENT_HEADER', header: 'X-GitHub-Event' }, 'missing header');
    t.equal(missing.status, 400, 'status 400');
    const ignored = await postWebhook(ts, 'github', { api_key: key, stream: 'github' }, JSON.stringify({ action: 'created', sender: { login: 'x' } }), { 'X-GitHub-Event': 'milestone' });
    t.same(ignored.body, { result: 'success', msg: '' }, 'events the reference ignores succeed silently');
  });

  t.test('JSON: the payload as a code block, topic JSON', async (t) => {
    await postWebhook(ts, 'json', { api_key: key, stream: 'ops' }, JSON.stringify({ a: 1, b: ['x', 'é'] }));
    const msg = await lastMessage(ts, narrow('ops', 'JSON'));
    t.equal(msg.content, '```json\n{\n  "a": 1,\n  "b": [\n    "x",\n    "\\u00e9"\n  ]\n}\n```', 'pretty-printed as Python prints it');
  });

  t.test('without a channel the message goes to the bot owner', async (t) => {
    await postWebhook(ts, 'json', { api_key: key }, JSON.stringify({ hello: 'owner' }));
    const msg = await lastMessage(ts, [{ operator: 'dm', operand: [botId] }]);
    t.match(msg.content, /"hello": "owner"/, 'a direct message from the bot to its owner');
  });

  t.test('a channel that does not exist: the owner is told, the service gets success', async (t) => {
    const res = await postWebhook(ts, 'json', { api_key: key, stream: 'no such channel' }, JSON.stringify({ x: 1 }));
    t.same(res.body, { result: 'success', msg: '' }, 'success');
    const notice = await lastMessage(ts, [{ operator: 'is', operand: 'dm' }]);
    t.match(notice.content, /tried to send a message to channel #\*\*no such channel\*\*, but that channel does not exist/, 'the owner gets a notice');
  });

  t.test('credentials', async (t) => {
    const bad = await postWebhook(ts, 'github', { api_key: 'x'.repeat(32), stream: 'github' }, fixture('github', 'issues'), { 'X-GitHub-Event': 'issues' });
    t.same([bad.status, bad.body.code], [401, 'INVALID_API_KEY'], 'an unknown key is refused');
    const none = await postWebhook(ts, 'github', { stream: 'github' }, fixture('github', 'issues'), { 'X-GitHub-Event': 'issues' });
    t.same(none.body, { result: 'error', msg: "Missing 'api_key' argument", code: 'REQUEST_VARIABLE_MISSING', var_name: 'api_key' }, 'no key at all');
    const unknown = await postWebhook(ts, 'nosuch', { api_key: key, stream: 'github' }, '{}');
    t.equal(unknown.status, 404, 'an unknown integration is 404');
    const malformed = await postWebhook(ts, 'json', { api_key: key, stream: 'ops' }, 'not json');
    t.match([malformed.status, malformed.body], [400, { result: 'error', msg: 'Malformed JSON' }], 'a body that is not JSON');
    // The bot's key works for webhooks and sending, and for nothing else.
    const bot = { email: (await ts.request('GET', `/users/${botId}`)).body.user.email, apiKey: key };
    const read = await ts.as(bot)('GET', '/messages', { params: { anchor: 'newest', num_before: 1, num_after: 0 } });
    t.same([read.status, read.body.msg, read.body.code], [401, 'This API is not available to incoming webhook bots.', 'UNAUTHORIZED'], 'an incoming webhook bot may not read messages');
    const sent = await ts.as(bot)('POST', '/messages', { params: { type: 'stream', to: 'ops', topic: 't', content: 'by hand' } });
    t.equal(sent.status, 200, 'but may send them');
    await ts.request('DELETE', `/bots/${botId}`);
    const deactivated = await postWebhook(ts, 'json', { api_key: key, stream: 'ops' }, '{}');
    t.same([deactivated.status, deactivated.body.code], [401, 'USER_DEACTIVATED'], 'a deactivated bot\'s key stops working');
  });

  t.test('any user\'s key names the sender', async (t) => {
    const member = await createUser(ts, 'member@example.com', 'Member');
    const res = await postWebhook(ts, 'json', { api_key: member.apiKey, stream: 'ops' }, JSON.stringify({ by: 'member' }));
    t.equal(res.body.result, 'success', 'a human\'s own key works, as in the reference');
  });
});
