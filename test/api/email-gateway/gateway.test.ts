import t from 'tap';
import { createUser, startTestServer, type TestServer } from '../../helpers/server.js';
import { sendMail } from './smtp-client.js';

async function newest(ts: TestServer, topic: string): Promise<any> {
  const res = await ts.request('GET', '/messages', { params: { anchor: 'newest', num_before: 1, num_after: 0, narrow: [{ operator: 'channel', operand: 'general' }, { operator: 'topic', operand: topic }], apply_markdown: false } });
  return res.body.messages[0];
}

const generalId = async (ts: TestServer) => (await ts.request('GET', '/get_stream_id', { params: { stream: 'general' } })).body.stream_id as number;

t.test('GET /streams/{stream_id}/email_address with the gateway off', async (t) => {
  const ts = await startTestServer(t);
  const res = await ts.request('GET', `/streams/${await generalId(ts)}/email_address`);
  t.same(res.body, { result: 'success', msg: '', email: '' }, 'no address, as the reference without EMAIL_GATEWAY_PATTERN');
});

t.test('the email gateway', async (t) => {
  const ts = await startTestServer(t, { emailGateway: { enabled: true, domain: 'mail.stoa.test', port: 0, bind: '127.0.0.1', maxMessageBytes: 64 * 1024 } });
  const port = ts.server.mailPort!;
  const general = await generalId(ts);
  const member = await createUser(ts, 'member@example.com', 'Member');
  let gatewayBot: any;

  t.test('addresses', async (t) => {
    const res = await ts.request('GET', `/streams/${general}/email_address`);
    t.match(res.body.email, /^general\.[0-9a-f]{32}\.show-sender@mail\.stoa\.test$/, 'the reference\'s form, with show-sender');
    t.equal((await ts.request('GET', `/streams/${general}/email_address`)).body.email, res.body.email, 'the same address again');
    const reg = await ts.request('POST', '/register', { params: { fetch_event_types: ['realm_user'] } });
    gatewayBot = reg.body.cross_realm_bots.find((b: any) => b.email === 'emailgateway@zulip.com');
    t.ok(gatewayBot, 'the Email Gateway bot is a cross-realm bot');
    const self = await ts.request('GET', `/streams/${general}/email_address`, { params: { sender_id: ts.owner.userId } });
    t.not(self.body.email, res.body.email, 'posting as oneself is another address');
    const bot = await ts.as(member)('POST', '/bots', { params: { full_name: 'Mail Bot', short_name: 'mail' } });
    const ownersBot = await ts.request('POST', '/bots', { params: { full_name: 'Owner Mail Bot', short_name: 'ownermail' } });
    const theirs = await ts.as(member)('GET', `/streams/${general}/email_address`, { params: { sender_id: ownersBot.body.user_id } });
    t.equal(theirs.body.msg, 'Insufficient permission', 'not as another user\'s bot');
    const human = await ts.as(member)('GET', `/streams/${general}/email_address`, { params: { sender_id: ts.owner.userId } });
    t.equal(human.body.msg, 'No such bot', 'nor as another human');
    const mine = await ts.as(member)('GET', `/streams/${general}/email_address`, { params: { sender_id: bot.body.user_id } });
    t.equal(mine.status, 200, 'but as one\'s own bot');
    t.equal((await ts.request('GET', '/streams/9999/email_address')).body.msg, 'Invalid channel ID', 'an unknown channel');
    const secret = await ts.request('POST', '/users/me/subscriptions', { params: { subscriptions: [{ name: 'secret' }], invite_only: true } });
    t.equal(secret.status, 200, 'a private channel');
    const secretId = (await ts.request('GET', '/get_stream_id', { params: { stream: 'secret' } })).body.stream_id;
    t.equal((await ts.as(member)('GET', `/streams/${secretId}/email_address`)).body.msg, 'Invalid channel ID', 'not for a private channel one cannot read');
  });

  t.test('mail becomes a message: subject as topic, quotes and footer dropped, sender shown, attachments uploaded', async (t) => {
    const address = (await ts.request('GET', `/streams/${general}/email_address`)).body.email;
    const mail = [
      'From: Alice Example <alice@example.org>',
      `To: ${address}`,
      'Subject: Re: Deploy tonight',
      'MIME-Version: 1.0',
      'Content-Type: multipart/mixed; boundary="b1"',
      '',
      '--b1',
      'Content-Type: text/plain; charset=utf-8',
      '',
      'The deploy is **done**.',
      '',
      '--',
      'Alice, sent from her phone',
      '--b1',
      'Content-Type: text/plain; name="notes.txt"',
      'Content-Disposition: attachment; filename="notes.txt"',
      'Content-Transfer-Encoding: base64',
      '',
      Buffer.from('release notes').toString('base64'),
      '--b1--',
      '',
    ].join('\n');
    const replies = await sendMail(port, 'alice@example.org', [address], mail);
    t.match(replies.at(-2), /^250 /, `accepted: ${replies.join(' | ')}`);
    const msg = await newest(ts, 'Deploy tonight');
    t.ok(msg, 'posted in topic "Deploy tonight"');
    t.equal(msg?.sender_id, gatewayBot.user_id, 'by the Email Gateway bot');
    t.match(msg?.content, /^From: Alice Example <alice@example\.org>\nThe deploy is \*\*done\*\*\.\n\n\[notes\.txt\]\(\/user_uploads\/\d+\/[^)]+\/notes\.txt\)$/, 'sender, body without the footer, and the attachment');
    const link = /\((\/user_uploads\/[^)]+)\)/.exec(msg?.content ?? '')![1];
    const file = await fetch(`http://127.0.0.1:${ts.port}${link}`, { headers: { host: ts.server.config.externalHost, authorization: `Basic ${Buffer.from(`${ts.owner.email}:${ts.owner.apiKey}`).toString('base64')}` } });
    t.equal(await file.text(), 'release notes', 'the attachment is an upload');
  });

  t.test('quoted replies are dropped unless the address asks to include them', async (t) => {
    const address = (await ts.request('GET', `/streams/${general}/email_address`)).body.email as string;
    const body = 'Sounds good.\n\nOn Mon, Bob wrote:\n> earlier text\n';
    await sendMail(port, 'bob@example.org', [address], `From: bob@example.org\nSubject: plain\n\n${body}`);
    t.equal((await newest(ts, 'plain'))?.content, 'From: bob@example.org\nSounds good.', 'quote dropped');
    const withQuotes = address.replace('.show-sender@', '.include-quotes@');
    await sendMail(port, 'bob@example.org', [withQuotes], `From: bob@example.org\nSubject: quoted\n\n${body}`);
    t.equal((await newest(ts, 'quoted'))?.content, 'Sounds good.\n\nOn Mon, Bob wrote:\n> earlier text', 'kept, and without show-sender no From line');
  });

  t.test('unknown addresses and oversized mail are refused', async (t) => {
    const unknown = await sendMail(port, 'x@example.org', [`general.${'0'.repeat(32)}@mail.stoa.test`], 'Subject: x\n\nx');
    t.match(unknown.at(-1), /^550 /, 'an unknown token: 550 at RCPT TO');
    const elsewhere = await sendMail(port, 'x@example.org', ['someone@other.example'], 'Subject: x\n\nx');
    t.match(elsewhere.at(-1), /^550 /, 'no relaying');
    const address = (await ts.request('GET', `/streams/${general}/email_address`)).body.email;
    const big = await sendMail(port, 'x@example.org', [address], `Subject: big\n\n${'x'.repeat(70 * 1024)}`);
    t.match(big.join(' '), /\b552 /, 'over maxMessageBytes: 552');
    t.notOk(await newest(ts, 'big'), 'nothing posted');
  });
});
