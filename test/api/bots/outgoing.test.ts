import t from 'tap';
import { createUser, startTestServer, type TestServer } from '../../helpers/server.js';
import { botServer, eventually } from './bot-server.js';

/** The messages of a narrow, oldest first, raw content. */
async function messages(ts: TestServer, narrow: unknown[]): Promise<any[]> {
  const res = await ts.request('GET', '/messages', { params: { anchor: 'newest', num_before: 50, num_after: 0, narrow, apply_markdown: false } });
  return res.body.messages;
}

async function outgoingBot(ts: TestServer, short: string, url: string, iface = 1) {
  const res = await ts.request('POST', '/bots', { params: { full_name: `${short} bot`, short_name: short, bot_type: 3, payload_url: JSON.stringify(url), interface_type: iface } });
  if (res.status !== 200) throw new Error(JSON.stringify(res.body));
  const reg = await ts.request('POST', '/register', { params: { fetch_event_types: ['realm_bot'] } });
  const bot = reg.body.realm_bots.find((b: any) => b.user_id === res.body.user_id);
  return { id: res.body.user_id as number, email: bot.email as string, fullName: bot.full_name as string, token: bot.services[0].token as string };
}

t.test('outgoing webhooks, to a real bot server on localhost', async (t) => {
  const ts = await startTestServer(t, { webhookAllowPrivateAddresses: true });
  const topic = (name: string) => [{ operator: 'channel', operand: 'general' }, { operator: 'topic', operand: name }];

  t.test('a server that fails twice, then answers: the reply arrives once', async (t) => {
    const server = await botServer(t, (n) => (n < 2 ? { status: 500, body: 'busy' } : { status: 200, body: JSON.stringify({ content: 'pong' }) }));
    const bot = await outgoingBot(ts, 'flaky', server.url);
    const sent = await ts.request('POST', '/messages', { params: { type: 'stream', to: 'general', topic: 'flaky', content: `@**${bot.fullName}** ping` } });
    t.equal(sent.status, 200, 'sent');
    const reply = await eventually(async () => (await messages(ts, topic('flaky'))).find((m) => m.sender_id === bot.id));
    t.ok(reply, 'the bot replied');
    t.equal(reply?.content, 'pong', 'with the bot server\'s content, in the same topic');
    t.equal(server.received.length, 3, 'after two failures and a success');
    await new Promise((r) => setTimeout(r, 2500));
    t.equal((await messages(ts, topic('flaky'))).filter((m) => m.sender_id === bot.id).length, 1, 'once');
    const payload = server.received[2].json;
    t.match(payload, { bot_email: bot.email, bot_full_name: bot.fullName, data: `@**${bot.fullName}** ping`, token: bot.token, trigger: 'mention' }, 'the reference\'s payload');
    t.match(payload.message, { id: sent.body.id, type: 'stream', subject: 'flaky', display_recipient: 'general', content: `@**${bot.fullName}** ping` }, 'with the message');
    t.match(payload.message.rendered_content, /<span class="user-mention" data-user-id="\d+">@flaky bot<\/span> ping/, 'and its rendered content');
    t.same(Object.keys(payload).sort(), ['bot_email', 'bot_full_name', 'data', 'message', 'token', 'trigger'], 'and nothing else');
    t.match(server.received[0].headers['user-agent'], /^ZulipOutgoingWebhook\//, 'sent as ZulipOutgoingWebhook');
  });

  t.test('direct messages trigger; response_not_required and response_string', async (t) => {
    const server = await botServer(t, (n) => ({ status: 200, body: JSON.stringify(n === 0 ? { response_not_required: true } : { response_string: 'string reply' }) }));
    const bot = await outgoingBot(ts, 'dm', server.url);
    const dm = [{ operator: 'dm', operand: [bot.id] }];
    await ts.request('POST', '/messages', { params: { type: 'direct', to: JSON.stringify([bot.id]), content: 'first' } });
    await eventually(async () => (server.received.length > 0 ? true : undefined));
    t.equal(server.received[0].json.trigger, 'direct_message', 'trigger direct_message');
    await ts.request('POST', '/messages', { params: { type: 'direct', to: JSON.stringify([bot.id]), content: 'second' } });
    const reply = await eventually(async () => (await messages(ts, dm)).find((m) => m.sender_id === bot.id));
    t.equal(reply?.content, 'string reply', 'response_string becomes the reply, in the direct message');
    t.equal((await messages(ts, dm)).filter((m) => m.sender_id === bot.id).length, 1, 'response_not_required sent nothing');
  });

  t.test('a 4xx is not retried: the conversation and the owner are told', async (t) => {
    const server = await botServer(t, () => ({ status: 404, body: 'nope' }));
    const bot = await outgoingBot(ts, 'gone', server.url);
    await ts.request('POST', '/messages', { params: { type: 'stream', to: 'general', topic: 'gone', content: `@**${bot.fullName}** hello` } });
    const failure = await eventually(async () => (await messages(ts, topic('gone'))).find((m) => m.sender_id === bot.id));
    t.equal(failure?.content, 'Failure! Third party responded with 404', 'the reference\'s failure message in the topic');
    const notice = await eventually(async () => (await messages(ts, [{ operator: 'dm', operand: [bot.id] }])).find((m) => /triggered an outgoing webhook/.test(m.content)));
    t.match(notice?.content, /^\[A message\]\(.*\/near\/\d+\) to your bot @_\*\*gone bot\*\* triggered an outgoing webhook\.\nThe webhook got a response with status code \*404\*\.\nThe response contains the following payload:\n```\nb'nope'\n```$/, 'the owner\'s notice');
    await new Promise((r) => setTimeout(r, 1500));
    t.equal(server.received.length, 1, 'one request only');
  });

  t.test('a server that keeps answering 5xx: three retries, then the failure is told', async (t) => {
    const server = await botServer(t, () => ({ status: 503, body: 'down' }));
    const bot = await outgoingBot(ts, 'down', server.url);
    await ts.request('POST', '/messages', { params: { type: 'stream', to: 'general', topic: 'down', content: `@**${bot.fullName}** hello` } });
    const failure = await eventually(async () => (await messages(ts, topic('down'))).find((m) => m.sender_id === bot.id), 20_000);
    t.equal(failure?.content, 'Failure! Third party responded with 503', 'told in the topic');
    t.equal(server.received.length, 4, 'one attempt and three retries');
  });

  t.test('Slack-compatible interface: form fields, `text` reply', async (t) => {
    const server = await botServer(t, () => ({ status: 200, body: JSON.stringify({ text: 'slack says hi' }) }));
    const bot = await outgoingBot(ts, 'slack', server.url, 2);
    await ts.request('POST', '/messages', { params: { type: 'stream', to: 'general', topic: 'slack', content: `@**${bot.fullName}** hi` } });
    const reply = await eventually(async () => (await messages(ts, topic('slack'))).find((m) => m.sender_id === bot.id));
    t.equal(reply?.content, 'slack says hi', 'the reply');
    t.match(server.received[0].json, { token: bot.token, channel_name: 'general', text: `@**${bot.fullName}** hi`, trigger_word: 'mention', user_id: `U${ts.owner.userId}` }, 'Slack\'s fields');
  });

  t.test('messages from bots trigger nothing', async (t) => {
    const server = await botServer(t, () => ({ status: 200, body: '{}' }));
    const bot = await outgoingBot(ts, 'quiet', server.url);
    const other = await ts.request('POST', '/bots', { params: { full_name: 'Other Bot', short_name: 'other' } });
    const otherEmail = (await ts.request('GET', `/users/${other.body.user_id}`)).body.user.email;
    await ts.request('POST', '/messages', { auth: { email: otherEmail, apiKey: other.body.api_key }, params: { type: 'stream', to: 'general', topic: 'bots', content: `@**${bot.fullName}** hi` } });
    await new Promise((r) => setTimeout(r, 1500));
    t.equal(server.received.length, 0, 'no request');
  });
});

t.test('outgoing webhooks to private addresses are refused by default', async (t) => {
  const ts = await startTestServer(t);
  const member = await createUser(ts, 'member@example.com', 'Member');
  const server = await botServer(t, () => ({ status: 200, body: JSON.stringify({ content: 'should not happen' }) }));
  for (const [name, url] of [['loopback', server.url], ['ipv6', 'http://[::1]:9/x'], ['private', 'http://10.1.2.3/x'], ['mapped', 'http://[::ffff:127.0.0.1]:9/x'], ['name', server.url.replace('127.0.0.1', 'localhost')]] as const) {
    const bot = await outgoingBot(ts, name, url);
    await ts.as(member)('POST', '/messages', { params: { type: 'stream', to: 'general', topic: name, content: `@**${bot.fullName}** hi` } });
    const failure = await eventually(async () => (await messages(ts, [{ operator: 'channel', operand: 'general' }, { operator: 'topic', operand: name }])).find((m) => m.sender_id === bot.id));
    t.equal(failure?.content, 'Failure! Third party responded with 407', `${name}: refused, as the reference's proxy refuses it`);
  }
  t.equal(server.received.length, 0, 'the bot server was never reached');
  const notice = (await messages(ts, [{ operator: 'is', operand: 'dm' }])).find((m) => /private or disallowed network/.test(m.content));
  t.ok(notice, 'the owner is told the URL is for a private or disallowed network');
});
