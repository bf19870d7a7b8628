import t from 'tap';
import { startWorld, streamId, subscribe } from '../streams/world.js';

/**
 * POST /messages/{message_id}/report (feature level 382): the report reaches the moderation
 * request channel as a Notification Bot message in the reference's format (the expectations are
 * those of the reference's test_message_report.py).
 */
t.test('POST /messages/{message_id}/report', async (t) => {
  const w = await startWorld(t);
  const { owner, admin, hamlet, othello, polonius } = w.root;
  const asOwner = w.as(owner);
  const mention = (p: typeof hamlet, name: string) => `@_**${name}|${p.userId}**`;
  const report = (who: typeof hamlet, id: number, params: Record<string, unknown>) => w.as(who)('POST', `/messages/${id}/report`, { params });

  const reported = (await w.as(othello)('POST', '/messages', { params: { type: 'stream', to: 'general', topic: 'civilized discussions', content: 'I squeeze toothpaste from the middle' } })).body.id;

  t.test('refused while the realm has no moderation request channel', async (t) => {
    const res = await report(hamlet, reported, { report_type: 'harassment' });
    t.same(res.body, { result: 'error', msg: 'Message reporting is not enabled in this organization.', code: 'BAD_REQUEST' }, 'the reference error');
  });

  await subscribe(asOwner, ['reported messages'], { invite_only: true, principals: JSON.stringify([owner.userId, admin.userId]) });
  const channel = await streamId(asOwner, 'reported messages');
  const set = await asOwner('PATCH', '/realm', { params: { moderation_request_channel_id: channel } });
  t.equal(set.status, 200, 'the owner sets a moderation request channel');
  const latest = async () => (await asOwner('GET', '/messages', { params: { anchor: 'newest', num_before: 1, num_after: 0, narrow: JSON.stringify([{ operator: 'channel', operand: channel }]), apply_markdown: false } })).body.messages[0];

  t.test('a channel message: the report, its reason, notes and the message', async (t) => {
    const res = await report(hamlet, reported, { report_type: 'harassment', description: 'this is crime against food' });
    t.equal(res.status, 200, 'reported (and the answer matched the schema)');
    const msg = await latest();
    t.equal(msg.content, [
      `${mention(hamlet, 'hamlet')} reported #**general>civilized discussions@${reported}** sent by ${mention(othello, 'othello')}.`,
      '- Reason: **harassment**',
      '- Notes:',
      '```quote',
      'this is crime against food',
      '```',
      `\`\`\` spoiler **Message sent by ${mention(othello, 'othello')}**`,
      'I squeeze toothpaste from the middle',
      '```',
    ].join('\n'), 'the reference format');
    t.equal(msg.subject, "othello's moderation requests", 'a topic per reported user');
    t.equal(msg.sender_email, 'notification-bot@zulip.com', 'from the Notification Bot');
  });

  t.test('a direct message and a group direct message', async (t) => {
    const dm = (await w.as(othello)('POST', '/messages', { params: { type: 'direct', to: [hamlet.userId], content: 'I dip fries in ice cream' } })).body.id;
    t.equal((await report(hamlet, dm, { report_type: 'spam' })).status, 200, 'a participant reports a DM');
    t.match((await latest()).content, new RegExp(`^${escape(`${mention(hamlet, 'hamlet')} reported a DM sent by ${mention(othello, 'othello')}.`)}\n- Reason: \\*\\*spam\\*\\*\n- Notes:\n\`\`\`quote\n\n\`\`\``), 'header, and empty notes');
    const group = (await w.as(othello)('POST', '/messages', { params: { type: 'direct', to: [hamlet.userId, admin.userId], content: 'I eat cereal with water' } })).body.id;
    t.equal((await report(hamlet, group, { report_type: 'norms' })).status, 200, 'a group DM');
    const everyone = [admin, hamlet, othello].sort((a, b) => a.userId - b.userId).map((p) => mention(p, p === admin ? 'admin' : p === hamlet ? 'hamlet' : 'othello'));
    t.match((await latest()).content, `reported a DM sent by ${mention(othello, 'othello')} to ${everyone[0]}, ${everyone[1]}, and ${everyone[2]}.`, 'names every participant');
    t.same((await report(polonius, dm, { report_type: 'spam' })).body.msg, 'Invalid message(s)', 'a DM between others cannot be reported');
  });

  t.test('a message with code fences gets a longer fence; a long one is truncated', async (t) => {
    const fenced = (await w.as(othello)('POST', '/messages', { params: { type: 'stream', to: 'general', topic: 'code', content: '````\ncode\n````' } })).body.id;
    await report(hamlet, fenced, { report_type: 'spam' });
    t.match((await latest()).content, /\n````` spoiler [^\n]*\n````\ncode\n````\n`````$/, 'five backticks around four');
    const long = (await w.as(othello)('POST', '/messages', { params: { type: 'stream', to: 'general', topic: 'long', content: '.'.repeat(9000) } })).body.id;
    await report(hamlet, long, { report_type: 'spam' });
    const content: string = (await latest()).content;
    t.ok(content.includes(`${'.'.repeat(8500 - 20)}\n[message truncated]\n\`\`\``), 'cut to 8,500 characters, marked as the reference marks it');
  });

  t.test('the reasons and the explanation', async (t) => {
    t.same((await report(hamlet, reported, { report_type: 'other' })).body.msg, 'An explanation is required.', '"other" needs a description');
    t.equal((await report(hamlet, reported, { report_type: 'other', description: 'This is crime against food.' })).status, 200, 'with one it is accepted');
    const bad = await report(hamlet, reported, { report_type: 'boring' });
    t.same(bad.body, { result: 'error', msg: 'Invalid report_type', code: 'REQUEST_VARIABLE_INVALID', var_name: 'report_type' }, 'an unknown reason');
    const long = await report(hamlet, reported, { report_type: 'spam', description: 'x'.repeat(1001) });
    t.same(long.body.msg, 'description is too long (limit: 1000 characters)', 'at most 1,000 characters');
    const missing = await report(hamlet, reported, {});
    t.same(missing.body.code, 'REQUEST_VARIABLE_MISSING', 'report_type is required');
  });

  t.test('only messages the reporter can see', async (t) => {
    await subscribe(w.as(othello), ['private channel'], { invite_only: true });
    const hidden = (await w.as(othello)('POST', '/messages', { params: { type: 'stream', to: 'private channel', topic: 'x', content: 'foo bar' } })).body.id;
    const before = (await latest()).id;
    t.same((await report(hamlet, hidden, { report_type: 'spam' })).body.msg, 'Invalid message(s)', 'a private channel the reporter is not in');
    t.equal((await latest()).id, before, 'no report was posted');
    await w.as(hamlet)('DELETE', '/users/me/subscriptions', { params: { subscriptions: JSON.stringify(['general']) } });
    t.equal((await report(hamlet, reported, { report_type: 'spam' })).status, 200, 'a public channel the reporter left is still visible');
    const other = await w.asOther(w.other.hamlet)('POST', `/messages/${reported}/report`, { params: { report_type: 'spam' } });
    t.same(other.body.msg, 'Message reporting is not enabled in this organization.', 'another realm has its own setting, and sees nothing of this one');
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
