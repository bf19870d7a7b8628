import t from 'tap';
import { startTestServer } from '../../helpers/server.js';
import { startSmtpSink } from '../../helpers/smtp-sink.js';
import { world } from './people.js';

/**
 * Batching as the reference's MissedMessageWorker batches (the person's
 * email_notifications_batching_period_seconds; a few seconds here): messages read before the
 * batch goes drop out, one email per conversation, the least recently active first; and what an
 * email holds: the messages with their context, the sender's name and avatar, links back, both
 * parts, the unsubscribe headers.
 */
t.test('missed-message email batches and content', async (t) => {
  const sink = await startSmtpSink(t);
  const ts = await startTestServer(t, { email: { from: 'Stoa <noreply@stoa.test>', smtp: { host: '127.0.0.1', port: sink.port } } });
  const w = world(ts, sink);

  await t.test('a message read before the batch goes drops out of it', async (t) => {
    const reader = await w.person('Rita Reader', { email_notifications_batching_period_seconds: 4 });
    const first = await w.dm(ts.owner, [reader], 'read me before the email goes');
    const read = await ts.as(reader)('POST', '/messages/flags', { params: { messages: JSON.stringify([first]), op: 'add', flag: 'read' } });
    t.same(read.body.messages, [first], 'read at once');
    await w.dm(ts.owner, [reader], 'this one stays unread');
    const [mail] = await sink.waitFor(reader.email);
    t.match(mail.parsed.text, /this one stays unread/, 'the email has the unread message');
    t.notMatch(mail.parsed.text, /read me before/, 'and not the one read meanwhile');
    const mails = await w.sentinel(reader);
    t.equal(mails.filter((m) => m.parsed.text?.includes('read me before')).length, 0, 'which never comes in an email');
  });

  await t.test('one email per conversation, least recently active first', async (t) => {
    const busy = await w.person('Bea Busy', { email_notifications_batching_period_seconds: 4 });
    const ann = await w.person('Ann Other');
    await w.channel('busy', [busy, ann]);
    await w.post(ts.owner, 'busy', 'alpha', '@**Bea Busy** first in alpha');
    await w.dm(ann, [busy], 'a word from Ann');
    await w.post(ts.owner, 'busy', 'beta', '@**Bea Busy** in beta');
    await w.post(ts.owner, 'busy', 'alpha', '@**Bea Busy** second in alpha');
    await w.dm(ts.owner, [busy], 'and one from the owner');
    const mails = await sink.waitFor(busy.email, 4);
    t.same(mails.map((m) => m.parsed.subject), ['DMs with Ann Other', '#busy > beta', '#busy > alpha', 'DMs with Stoa Owner'], 'four conversations, four emails, in order of their last message');
    t.match(mails[2].parsed.text, /first in alpha[\s\S]*second in alpha/, 'both messages of a topic in its one email');
    const all = await w.sentinel(busy);
    t.equal(all.length, 5, 'and nothing more, the sentinel aside');
  });

  await t.test('what an email holds', async (t) => {
    const reader = await w.person('Carl Content');
    await w.channel('content', [reader]);
    await w.post(ts.owner, 'content', 'context', 'some context before the mention');
    const id = await w.post(ts.owner, 'content', 'context', '@**Carl Content** see [the spec](/user_uploads/1/ab/spec.pdf)\n\n```spoiler Plot\nthe butler did it\n```');
    const [mail] = await sink.waitFor(reader.email);
    const host = ts.server.config.externalHost;
    t.equal(mail.parsed.from?.value[0].address, 'noreply@stoa.test', 'from the configured address');
    t.equal(mail.parsed.from?.value[0].name, `${host.replace(/:\d+$/, '')} notifications`, 'named "<server> notifications", as the reference');
    t.equal(mail.parsed.replyTo?.value[0].address, 'noreply@stoa.test', 'replies go to the no-reply address without the gateway');
    t.match(mail.parsed.messageId, /^<stoa\.\d+\.\d+\.\d+\.\d+@/, 'a Message-ID that stays the same if it is sent again');
    t.equal(mail.header('x-auto-response-suppress'), 'All', 'auto-replies suppressed');
    t.match(mail.parsed.text, /some context before the mention[\s\S]*see/, 'the earlier message of the topic, as context, first');
    t.match(mail.parsed.text, new RegExp(`http://${host.replace(/\./g, '\\.')}/user_uploads/1/ab/spec\\.pdf`), 'upload links absolute in the text part');
    t.match(mail.parsed.text, /\(Open Zulip to see the spoiler content\)/, 'a spoiler hidden');
    t.notMatch(mail.parsed.text, /butler/, 'its content left out');
    t.notMatch(String(mail.parsed.html), /butler/, 'from both parts');
    const html = String(mail.parsed.html);
    t.match(html, new RegExp(`href="http://${host}/user_uploads/1/ab/spec\\.pdf"`), 'links absolute in the HTML part');
    t.match(html, /<img src="https:\/\/secure\.gravatar\.com\/avatar\/[0-9a-f]{32}\?d=identicon[^"]*"[^>]*>Stoa Owner/, 'the sender\'s avatar and name');
    t.match(mail.parsed.text, new RegExp(`/#narrow/channel/\\d+-content/topic/context/near/${id}`), 'a link to the message');
    const unsubscribe = /<(http[^>]+)>/.exec(mail.header('list-unsubscribe') ?? '')?.[1];
    t.match(unsubscribe, new RegExp(`^http://${host}/accounts/unsubscribe/missed_messages/[0-9a-f]{24}$`), 'List-Unsubscribe');
    t.equal(mail.header('list-unsubscribe-post'), 'List-Unsubscribe=One-Click', 'one-click (RFC 8058)');
    t.ok(mail.parsed.text?.includes(unsubscribe!) && html.includes(unsubscribe!), 'the same link in both parts');
  });

  await t.test('hidden content, and the organization in the subject', async (t) => {
    const hidden = await w.person('Hal Hidden', { message_content_in_email_notifications: false });
    await w.dm(ts.owner, [hidden], 'a secret plan');
    const [mail] = await sink.waitFor(hidden.email);
    t.equal(mail.parsed.subject, 'New messages', 'no conversation named');
    t.notMatch(mail.parsed.text, /secret plan/, 'no content');
    t.match(mail.parsed.text, /you have chosen to hide message content/, 'and why');
    t.match(mail.parsed.text, /View or reply in Stoa Zulip:/, 'a link to read it');

    const named = await w.person('Nora Named', { realm_name_in_email_notifications_policy: 2 });
    await w.dm(ts.owner, [named], 'with the organization named');
    const [withRealm] = await sink.waitFor(named.email);
    t.equal(withRealm.parsed.subject, 'DMs with Stoa Owner [Stoa]', 'the organization\'s name, when asked');

    t.equal((await ts.request('PATCH', '/realm', { params: { message_content_allowed_in_email_notifications: false } })).status, 200, 'the organization hides content');
    const org = await w.person('Olga Org');
    await w.dm(ts.owner, [org], 'the organization keeps this out');
    const [orgMail] = await sink.waitFor(org.email);
    t.notMatch(orgMail.parsed.text, /keeps this out/, 'no content');
    t.match(orgMail.parsed.text, /your organization hides message content/, 'the organization\'s reason');
  });
});
