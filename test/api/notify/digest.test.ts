import t from 'tap';
import { startTestServer } from '../../helpers/server.js';
import { startSmtpSink } from '../../helpers/smtp-sink.js';
import { world } from './people.js';

/**
 * Digest emails (the reference's digest.py): on the organization's digest weekday, people away
 * for a while get the busiest conversations of their channels, the new channels and (beyond the
 * reference) the new people. The server looks for digests to send every two seconds here
 * (notifications.digestIntervalSeconds) instead of daily.
 */
t.test('digest emails', async (t) => {
  const sink = await startSmtpSink(t);
  const ts = await startTestServer(t, {
    email: { from: null, smtp: { host: '127.0.0.1', port: sink.port } },
    notifications: { digestIntervalSeconds: 2 },
  });
  const w = world(ts, sink);
  const away = await w.person('Dora Digest');
  const active = await w.person('Andy Active');
  const optedOut = await w.person('Olive Optout', { enable_digest_emails: false });
  const talkers = [await w.person('Tess Talker'), await w.person('Uri Talker'), await w.person('Vic Talker')];
  await w.channel('digest-talk', [away, active, optedOut, ...talkers]);
  t.equal((await ts.as(active)('POST', '/users/me/presence', { params: { status: 'active' } })).status, 200, 'one of them is around');
  for (const [i, who] of talkers.entries()) await w.post(who, 'digest-talk', 'launch plan', `launch step ${i + 1}: ${who.name} reporting`);
  for (const who of talkers) await w.post(who, 'digest-talk', 'launch plan', `${who.name} again`);
  await w.post(talkers[0], 'digest-talk', 'lunch', 'anyone for lunch?');
  await ts.request('POST', '/users/me/subscriptions', { params: { subscriptions: JSON.stringify([{ name: 'fresh-channel' }]) } });
  const secret = await ts.request('POST', '/users/me/subscriptions', { params: { subscriptions: JSON.stringify([{ name: 'secret-channel' }]), invite_only: true } });
  t.equal(secret.status, 200, 'a private channel too');

  // Today, in the reference's numbering (Monday is 0).
  const today = (new Date().getUTCDay() + 6) % 7;
  t.equal((await ts.request('PATCH', '/realm', { params: { digest_emails_enabled: true, digest_weekday: today } })).status, 200, 'digests on, today');
  const [digest] = await sink.waitFor(away.email);
  t.equal(digest.parsed.subject, 'Zulip digest for Stoa', 'the reference\'s subject');
  const text = digest.parsed.text ?? '';
  t.match(text, /#digest-talk > launch plan\nTess Talker:\n> launch step 1: Tess Talker reporting\nUri Talker:\n> launch step 2/, 'the busiest conversation, with its first messages');
  t.match(text, /\+ 4 more messages by Tess Talker, Uri Talker, and Vic Talker\./, 'and who else took part');
  t.match(text, /#digest-talk > lunch/, 'the others follow');
  t.match(text, /\*\* New channels \*\*\n\s+.*fresh-channel/, 'new channels');
  t.notMatch(text, /secret-channel/, 'but not private ones');
  t.match(text, /\*\* New people \*\*\n\s+.*Tess Talker/, 'new people');
  t.match(text, /Log in to Zulip to catch up/, 'an invitation back');
  t.match(digest.header('list-unsubscribe') ?? '', /\/accounts\/unsubscribe\/digest\/[0-9a-f]{24}>$/, 'its own unsubscribe link');
  t.match(String(digest.parsed.html), /<a href="[^"]+\/#narrow\/channel\/\d+-digest-talk\/topic\/launch\.20plan">launch plan<\/a>/, 'links to the conversations in the HTML part');

  // A later round: whoever needs one gets it now; those who had theirs do not again.
  const late = await w.person('Liam Late');
  t.equal((await ts.as(late)('POST', '/users/me/subscriptions', { params: { subscriptions: JSON.stringify([{ name: 'digest-talk' }]) } })).status, 200, 'someone joins later');
  await sink.waitFor(late.email);
  t.equal(sink.to(away.email).length, 1, 'one digest, not one every round');
  t.same(sink.to(active.email), [], 'nothing for someone around');
  t.same(sink.to(optedOut.email), [], 'nor for someone with digests off');
});
