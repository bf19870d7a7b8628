import t from 'tap';
import { startTestServer } from '../../helpers/server.js';
import { startSmtpSink } from '../../helpers/smtp-sink.js';
import { sendMail } from '../email-gateway/smtp-client.js';
import { world } from './people.js';

/**
 * The links and addresses an email carries: its unsubscribe link, which works without logging
 * in (opened, or posted by a mail client's one-click button), and, with the email gateway on,
 * its Reply-To address, through which a reply by email lands in the conversation.
 */
t.test('unsubscribe links and replies by email', async (t) => {
  const sink = await startSmtpSink(t);
  const ts = await startTestServer(t, {
    email: { from: null, smtp: { host: '127.0.0.1', port: sink.port } },
    emailGateway: { enabled: true, domain: 'mail.stoa.test', port: 0, bind: '127.0.0.1', maxMessageBytes: 64 * 1024 },
  });
  const w = world(ts, sink);
  // Links name the external host (localhost:<port>); the server listens on 127.0.0.1.
  const local = (url: string) => url.replace(/^http:\/\/localhost:/, 'http://127.0.0.1:');
  const setting = async (p: { email: string; apiKey: string }, name: string) => (await ts.as(p)('POST', '/register', { params: { fetch_event_types: JSON.stringify(['user_settings']) } })).body.user_settings[name];

  await t.test('the unsubscribe link', async (t) => {
    const uma = await w.person('Uma Unsubscribe');
    // A client that asked for no message events: she is still away as far as messages go.
    const queue = await ts.as(uma)('POST', '/register', { params: { event_types: JSON.stringify(['user_settings']) } });
    await w.dm(ts.owner, [uma], 'one email before unsubscribing');
    const [mail] = await sink.waitFor(uma.email);
    const link = /<(http[^>]+)>/.exec(mail.header('list-unsubscribe') ?? '')![1];
    const page = await fetch(local(link));
    t.equal(page.status, 200, 'opened without logging in');
    t.match(page.headers.get('content-type'), /^text\/html/, 'a page');
    const html = await page.text();
    t.match(html, /You've successfully unsubscribed from Zulip missed messages emails for/, 'saying what changed');
    t.match(html, /#settings\/notifications/, 'and where to undo it');
    t.equal(await setting(uma, 'enable_offline_email_notifications'), false, 'the setting is off');
    const events = await ts.as(uma)('GET', '/events', { params: { queue_id: queue.body.queue_id, last_event_id: -1, dont_block: true } });
    t.ok(events.body.events.some((e: any) => e.type === 'user_settings' && e.property === 'enable_offline_email_notifications' && e.value === false), 'her clients hear of it');
    t.equal((await fetch(local(link))).status, 200, 'opening it again does no harm');

    const oneClick = await fetch(local(link.replace('/missed_messages/', '/digest/')), { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'List-Unsubscribe=One-Click' });
    t.equal(oneClick.status, 200, 'a one-click POST (RFC 8058)');
    t.equal(await setting(uma, 'enable_digest_emails'), false, 'turns digests off');

    const wrongKey = await fetch(local(link.replace(/[0-9a-f]{24}$/, '0'.repeat(24))));
    t.equal(wrongKey.status, 404, 'an unknown key');
    t.match(await wrongKey.text(), /Unknown email unsubscribe request/, 'is the reference\'s error page');
    t.equal((await fetch(local(link.replace('/missed_messages/', '/newsletters/')))).status, 404, 'so is an unknown kind');
  });

  await t.test('replying to a missed-message email', async (t) => {
    const rex = await w.person('Rex Replies');
    await w.channel('replies', [rex]);
    await w.dm(ts.owner, [rex], 'can you answer by email?');
    const [dmMail] = await sink.waitFor(rex.email);
    const dmReplyTo = dmMail.parsed.replyTo!.value[0].address!;
    t.match(dmReplyTo, /^mm[0-9a-f]{32}@mail\.stoa\.test$/, 'a reply address through the gateway');
    t.match(dmMail.parsed.text, /Reply to this email directly, or view it in Stoa Zulip:/, 'and the email says so');
    const reply = (to: string, body: string) =>
      sendMail(ts.server.mailPort!, 'rex@example.com', [to], ['From: Rex <rex@example.com>', `To: ${to}`, 'Subject: Re: DMs with Stoa Owner', 'Content-Type: text/plain; charset=utf-8', '', body, '', 'On Monday, Stoa wrote:', '> can you answer by email?', ''].join('\n'));
    const replies = await reply(dmReplyTo, 'Yes, by email.');
    t.match(replies[replies.length - 2], /^250/, 'the gateway takes it');
    const dms = await ts.as(rex)('GET', '/messages', { params: { anchor: 'newest', num_before: 1, num_after: 0, narrow: JSON.stringify([{ operator: 'dm', operand: [ts.owner.userId] }]), apply_markdown: false } });
    const last = dms.body.messages[0];
    t.equal(last.sender_id, rex.userId, 'posted as the person the email was for');
    t.equal(last.content, 'Yes, by email.', 'the reply, without the quoted email');

    await w.post(ts.owner, 'replies', 'plans', '@**Rex Replies** what do you think?');
    const channelMail = (await sink.waitFor(rex.email, 2))[1];
    const channelReplyTo = channelMail.parsed.replyTo!.value[0].address!;
    await reply(channelReplyTo, 'Sounds good to me.');
    const topic = await ts.request('GET', '/messages', { params: { anchor: 'newest', num_before: 1, num_after: 0, narrow: JSON.stringify([{ operator: 'channel', operand: 'replies' }, { operator: 'topic', operand: 'plans' }]), apply_markdown: false } });
    t.same([topic.body.messages[0].sender_id, topic.body.messages[0].content], [rex.userId, 'Sounds good to me.'], 'a reply about a channel message lands in its topic');

    const unknown = await reply(`mm${'0'.repeat(32)}@mail.stoa.test`, 'lost');
    t.match(unknown[unknown.length - 1], /^550/, 'an address the server never made is refused');
  });
});
