import t from 'tap';
import { startTestServer } from '../../helpers/server.js';
import { startSmtpSink } from '../../helpers/smtp-sink.js';
import { subjects, world, type Person } from './people.js';

/**
 * Who gets a missed-message email, trigger by trigger and setting by setting, over HTTP and a
 * real SMTP server: the reference's notification_data.py rules (model/notifications.ts). Every
 * person is away (no client, no presence) unless a case says otherwise; "no email" is checked
 * with a sentinel (people.ts) and, for those who may get nothing at all, at the end of the file.
 */
t.test('missed-message email triggers', async (t) => {
  const sink = await startSmtpSink(t);
  const ts = await startTestServer(t, { email: { from: null, smtp: { host: '127.0.0.1', port: sink.port } } });
  const w = world(ts, sink);
  const quietPeople: Person[] = [];
  const botEmails: string[] = [];
  const owner = { ...ts.owner, name: 'Stoa Owner' } as unknown as Person;
  const topicOf = (mails: { parsed: { subject?: string } }[]) => subjects(mails as never);
  /** Asserts that besides sentinels the person got exactly mails with these subjects. */
  const only = async (t: { same(a: unknown, b: unknown, m: string): void }, p: Person, expected: string[], why: string) => {
    const mails = await w.sentinel(p);
    const others = mails.filter((m) => !m.parsed.text?.includes('sentinel #'));
    t.same(topicOf(others), [...expected].sort(), why);
    return others;
  };

  await t.test('direct messages', async (t) => {
    const alice = await w.person('Alice Away');
    const quiet = await w.person('Quiet Quinn', { enable_offline_email_notifications: false });
    await w.dm(ts.owner, [alice], 'Alice, the **deploy** is done.');
    const [mail] = await sink.waitFor(alice.email);
    t.equal(mail.parsed.subject, 'DMs with Stoa Owner', 'the reference\'s subject');
    t.match(mail.parsed.text, /> Alice, the \*\*deploy\*\* is done\./, 'the message, quoted, in the text part');
    t.match(String(mail.parsed.html), /<strong>deploy<\/strong>/, 'and rendered in the HTML part');
    t.same(mail.to, [alice.email], 'to the person only');
    await w.dm(ts.owner, [quiet], 'Quinn will not hear of this by email');
    // Checked at the end: with the setting off there is no sentinel either.
    quietPeople.push(quiet);
    const group = await w.person('Grace Group');
    const third = await w.person('Third Person');
    await w.dm(ts.owner, [group, third], 'a group direct message');
    const mails = await only(t, group, ['Group DMs with Stoa Owner and Third Person'], 'a group DM names the others');
    t.match(mails[0].parsed.text, /Stoa Owner:\n> a group direct message/, 'with the sender\'s name');
    const own = w.mails(owner).length;
    t.equal(own, 0, 'the sender is told nothing of their own messages');
  });

  await t.test('mentions in channels', async (t) => {
    const mentioned = await w.person('Mentioned Mia');
    const bystander = await w.person('Bystander Ben');
    const member = await w.person('Member Mo');
    const outsider = await w.person('Outsider Otto');
    await w.channel('mentions', [mentioned, bystander, member, outsider]);
    const group = await ts.request('POST', '/user_groups/create', { params: { name: 'backend', description: 'the backend team', members: JSON.stringify([member.userId]) } });
    t.equal(group.status, 200, 'a user group');
    await w.post(ts.owner, 'mentions', 'release', '@**Mentioned Mia** can you look at this?');
    const [mail] = await sink.waitFor(mentioned.email);
    t.equal(mail.parsed.subject, '#mentions > release', 'a channel conversation\'s subject');
    t.match(mail.parsed.text, /You are receiving this because you were personally mentioned\./, 'and why');
    await w.post(ts.owner, 'mentions', 'release', '@*backend* please deploy');
    const [groupMail] = await sink.waitFor(member.email);
    t.match(groupMail.parsed.text, /You are receiving this because @backend was mentioned\./, 'a group mention names the group');
    await only(t, bystander, [], 'a subscriber not mentioned gets nothing');
    await only(t, outsider, [], 'nor does one outside the group');
  });

  await t.test('wildcard mentions', async (t) => {
    const everyone = await w.person('Wanda Wildcard');
    const off = await w.person('Walter Off', { wildcard_mentions_notify: false });
    const channelOff = await w.person('Wendy Channel');
    const muted = await w.person('Will Muted');
    const participant = await w.person('Tina Topic');
    const notParticipant = await w.person('Tom Elsewhere');
    const id = await w.channel('wild', [everyone, off, channelOff, muted, participant, notParticipant]);
    const props = (p: Person, property: string, value: unknown) => ts.as(p)('POST', '/users/me/subscriptions/properties', { params: { subscription_data: JSON.stringify([{ stream_id: id, property, value }]) } });
    t.equal((await props(channelOff, 'wildcard_mentions_notify', false)).status, 200, 'a channel\'s own wildcard setting');
    t.equal((await props(muted, 'is_muted', true)).status, 200, 'a muted channel');
    await w.post(ts.owner, 'wild', 'all hands', 'hello @**all**');
    const [mail] = await sink.waitFor(everyone.email);
    t.match(mail.parsed.text, /You are receiving this because everyone was mentioned in #wild\./, '@all notifies by default');
    await only(t, off, [], 'not with wildcard_mentions_notify off');
    await only(t, channelOff, [], 'nor with the channel\'s setting off');
    await only(t, muted, [], 'nor in a muted channel');

    await w.post(participant, 'wild', 'standup', 'my update');
    await w.post(ts.owner, 'wild', 'standup', '@**topic** please post updates');
    const topicMail = (await sink.waitFor(participant.email, 2)).find((m) => m.parsed.subject === '#wild > standup')!;
    t.match(topicMail.parsed.text, /all topic participants were mentioned in #wild > standup/, '@topic reaches those who took part');
    await only(t, notParticipant, ['#wild > all hands'], 'not the others (who had the @all)');
  });

  await t.test('alert words, followed topics, channel settings', async (t) => {
    const alerted = await w.person('Alert Al');
    const follower = await w.person('Fiona Follower');
    const followerOff = await w.person('Fred Follower', { enable_followed_topic_email_notifications: false });
    const subEmail = await w.person('Sam Subscription');
    const globalEmail = await w.person('Gus Global', { enable_stream_email_notifications: true });
    const topicMuted = await w.person('Terry Muted Topic');
    const channelMuted = await w.person('Cora Muted Channel', { enable_stream_email_notifications: true });
    const id = await w.channel('ops', [alerted, follower, followerOff, subEmail, globalEmail, topicMuted, channelMuted]);
    t.equal((await ts.as(alerted)('POST', '/users/me/alert_words', { params: { alert_words: JSON.stringify(['pineapple']) } })).status, 200, 'an alert word');
    for (const p of [follower, followerOff]) {
      t.equal((await ts.as(p)('POST', '/user_topics', { params: { stream_id: id, topic: 'incident', visibility_policy: 3 } })).status, 200, `${p.name} follows the topic`);
    }
    const props = (p: Person, property: string, value: unknown) => ts.as(p)('POST', '/users/me/subscriptions/properties', { params: { subscription_data: JSON.stringify([{ stream_id: id, property, value }]) } });
    t.equal((await props(subEmail, 'email_notifications', true)).status, 200, 'email notifications on for the channel');
    t.equal((await props(topicMuted, 'email_notifications', true)).status, 200, 'on for the channel...');
    t.equal((await ts.as(topicMuted)('POST', '/user_topics', { params: { stream_id: id, topic: 'incident', visibility_policy: 1 } })).status, 200, '...with the topic muted');
    t.equal((await props(channelMuted, 'is_muted', true)).status, 200, 'global email on, the channel muted');

    await w.post(ts.owner, 'ops', 'incident', 'the pineapple server is down');
    const [followed] = await sink.waitFor(follower.email);
    t.match(followed.parsed.text, /email notifications enabled for topics you follow/, 'a followed topic notifies');
    const [sub] = await sink.waitFor(subEmail.email);
    t.match(sub.parsed.text, /email notifications enabled for #ops\./, 'a channel with email notifications on notifies');
    const [global] = await sink.waitFor(globalEmail.email);
    t.equal(global.parsed.subject, '#ops > incident', 'so does the global setting');
    await only(t, alerted, [], 'an alert word alone sends no email (the reference shows it on the desktop only)');
    await only(t, followerOff, [], 'a follower with followed-topic emails off gets nothing');
    await only(t, topicMuted, [], 'a muted topic silences the channel setting');
    await only(t, channelMuted, [], 'a muted channel silences the global one');

    // A personal mention is heard through a muted channel; @all is not, unless the topic is unmuted.
    await w.post(ts.owner, 'ops', 'other', '@**Cora Muted Channel** this one is for you');
    await only(t, channelMuted, ['#ops > other'], 'a mention reaches through a muted channel');
    t.equal((await ts.as(channelMuted)('POST', '/user_topics', { params: { stream_id: id, topic: 'unmuted', visibility_policy: 2 } })).status, 200, 'a topic unmuted in the muted channel');
    await w.post(ts.owner, 'ops', 'unmuted', '@**all** in the unmuted topic');
    await w.post(ts.owner, 'ops', 'still muted', '@**all** elsewhere');
    await only(t, channelMuted, ['#ops > other', '#ops > unmuted'], '@all reaches the unmuted topic only');
  });

  await t.test('muted senders and bots', async (t) => {
    const muter = await w.person('Mute Mallory');
    t.equal((await ts.as(muter)('POST', `/users/me/muted_users/${ts.owner.userId}`)).status, 200, 'the owner muted');
    await w.dm(ts.owner, [muter], 'from someone muted');
    quietPeople.push(muter);
    const bot = await ts.request('POST', '/bots', { params: { full_name: 'Helper Bot', short_name: 'helper' } });
    t.equal(bot.status, 200, 'a bot');
    await ts.request('POST', '/messages', { params: { type: 'private', to: JSON.stringify([bot.body.user_id]), content: 'a bot has no inbox' } });
    botEmails.push(`helper-bot@${new URL(`http://${ts.server.config.externalHost}`).hostname}`);
  });

  await t.test('people who are around are not emailed; their last client going away is what tells', async (t) => {
    const here = await w.person('Hana Here');
    const asHere = ts.as(here);
    const queue = await asHere('POST', '/register', { params: { event_types: JSON.stringify(['message']) } });
    t.equal(queue.status, 200, 'a client with an event queue');
    t.equal((await asHere('POST', '/users/me/presence', { params: { status: 'active' } })).status, 200, 'reporting activity');
    await w.dm(ts.owner, [here], 'while you were here');
    const desk = await w.person('Idle Desk');
    t.equal((await ts.as(desk)('POST', '/register', { params: { event_types: JSON.stringify(['message']) } })).status, 200, 'a desktop left open, with no activity');
    await w.dm(ts.owner, [desk], 'to the idle desktop');
    const [idleMail] = await sink.waitFor(desk.email);
    t.match(idleMail.parsed.text, /to the idle desktop/, 'an open client without presence counts as away (the idle desktop problem)');
    t.equal(w.mails(here).length, 0, 'nothing yet for the one who is here');
    // The client closes its queue (or it expires): its undelivered message now notifies.
    t.equal((await asHere('DELETE', '/events', { params: { queue_id: queue.body.queue_id } })).status, 200, 'the last queue goes');
    const [late] = await sink.waitFor(here.email);
    t.match(late.parsed.text, /while you were here/, 'the message the vanished client never showed is emailed');
  });

  await t.test('an edit that adds a mention; a move into a followed topic', async (t) => {
    const editee = await w.person('Eddie Edited');
    const mover = await w.person('Molly Follows');
    const id = await w.channel('edits', [editee, mover]);
    const msg = await w.post(ts.owner, 'edits', 'draft', 'nobody is mentioned yet');
    t.equal((await ts.request('PATCH', `/messages/${msg}`, { params: { content: 'now @**Eddie Edited** is' } })).status, 200, 'edited to mention');
    const [mail] = await sink.waitFor(editee.email);
    t.match(mail.parsed.text, /personally mentioned/, 'the new mention notifies');
    t.equal((await ts.request('PATCH', `/messages/${msg}`, { params: { content: 'now @**Eddie Edited** is, typo fixed' } })).status, 200, 'edited again');
    await only(t, editee, ['#edits > draft'], 'a mention already there notifies once');

    await w.post(ts.owner, 'edits', 'decisions', 'decisions go here');
    t.equal((await ts.as(mover)('POST', '/user_topics', { params: { stream_id: id, topic: 'decisions', visibility_policy: 3 } })).status, 200, 'Molly follows "decisions"');
    const moved = await w.post(ts.owner, 'edits', 'chatter', 'we decided to ship');
    await only(t, mover, [], 'nothing while it is in another topic');
    t.equal((await ts.request('PATCH', `/messages/${moved}`, { params: { topic: 'decisions', propagate_mode: 'change_one', send_notification_to_old_thread: false, send_notification_to_new_thread: false } })).status, 200, 'moved into the followed topic');
    const mails = await only(t, mover, ['#edits > decisions'], 'the move notifies the follower');
    t.match(mails[0].parsed.text, /we decided to ship/, 'of the moved message');
    t.notMatch(mails[0].parsed.text, /decisions go here/, 'and of nothing else');
  });

  // Those who may get nothing at all: by now every batch of theirs would long have gone.
  await t.test('nothing at all for those who must get nothing', async (t) => {
    const late = await w.person('Late Sentinel');
    await w.sentinel(late);
    for (const p of quietPeople) t.same(w.mails(p), [], `${p.name}: no email`);
    for (const email of botEmails) t.same(sink.to(email), [], `${email}: bots get none`);
  });
});
