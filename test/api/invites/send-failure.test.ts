import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { freePort } from '../../startup/spawn.js';
import { startTestServer } from '../../helpers/server.js';

/**
 * An invitation the mail server does not take: the invitation is made and kept (its mail in the
 * outbox), and the person who sent it hears of it from Notification Bot, with the link to hand
 * over; the reason stays in the server's log.
 */
t.test('POST /invites with a mail server that cannot be reached', async (t) => {
  const ts = await startTestServer(t, { email: { from: 'Stoa Test <noreply@stoa.test>', smtp: { host: '127.0.0.1', port: await freePort() } } });
  const general = (await ts.request('GET', '/get_stream_id', { params: { stream: 'general' } })).body.stream_id;
  const res = await ts.request('POST', '/invites', { params: { invitee_emails: 'late@example.com', stream_ids: [general] } });
  t.equal(res.status, 200, 'the invitation is made');
  const invites = (await ts.request('GET', '/invites')).body.invites as { email: string }[];
  t.ok(invites.some((i) => i.email === 'late@example.com'), 'and listed');
  t.equal(readdirSync(join(ts.dataDir, 'outbox')).filter((f) => f.endsWith('.eml')).length, 1, 'its mail is kept in the outbox');

  const messages = await ts.request('GET', '/messages', { params: { anchor: 'newest', num_before: 10, num_after: 0, narrow: [{ operator: 'is', operand: 'dm' }] } });
  const notice = (messages.body.messages as { content: string; sender_email: string }[]).find((m) => /could not be sent/.test(m.content));
  t.ok(notice, 'the inviter gets a message about it');
  t.match(notice?.sender_email, /^notification-bot@/, 'from Notification Bot');
  t.match(notice?.content, /late@example\.com/, 'naming the address');
  t.match(notice?.content, /\/join\/[a-z0-9]+\//, 'with the link to hand over');
  t.notMatch(notice?.content, /ECONNREFUSED|127\.0\.0\.1:\d+/, 'and not the mail server\'s internals');
});
