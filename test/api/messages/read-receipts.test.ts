import t from 'tap';
import { startWorld, subscribe, type Person } from '../streams/world.js';

t.test('GET /messages/{message_id}/read_receipts', async (t) => {
  const w = await startWorld(t);
  const { owner, admin, hamlet, othello, polonius, bot } = w.root;
  const send = async (who: Person, params: Record<string, unknown>) => (await w.as(who)('POST', '/messages', { params: { content: 'x', ...params } })).body.id as number;
  const read = (who: Person, id: number) => w.as(who)('POST', '/messages/flags', { params: { messages: [id], op: 'add', flag: 'read' } });
  const receipts = (who: Person, id: number) => w.as(who)('GET', `/messages/${id}/read_receipts`);
  const id = await send(hamlet, { type: 'stream', to: 'general', topic: 'Receipts' });

  t.equal((await w.as(owner)('PATCH', '/realm', { params: { enable_read_receipts: false } })).status, 200, 'turned off (an invite-only organization starts with them on)');
  t.match((await receipts(hamlet, id)).body, { result: 'error', msg: 'Read receipts are disabled in this organization.', code: 'BAD_REQUEST' }, 'refused while off');
  t.equal((await w.as(owner)('PATCH', '/realm', { params: { enable_read_receipts: true } })).status, 200, 'turned on');

  t.same((await receipts(hamlet, id)).body, { result: 'success', msg: '', user_ids: [] }, 'nobody has read it yet');
  for (const who of [othello, owner, bot, polonius]) await read(who, id);
  await read(hamlet, id);
  t.same((await receipts(hamlet, id)).body.user_ids, [owner, othello, polonius, bot].map((p) => p.userId).sort((a, b) => a - b), 'who read it, bots included, never the sender');
  t.same((await receipts(othello, id)).body.user_ids, [owner, othello, polonius, bot].map((p) => p.userId).sort((a, b) => a - b), 'the same for anyone who can read the message, oneself included');
  t.same((await receipts(polonius, id)).body.user_ids, [owner, othello, polonius, bot].map((p) => p.userId).sort((a, b) => a - b), 'a guest in the channel too');

  await w.as(owner)('PATCH', '/settings', { params: { send_read_receipts: false } });
  t.notOk((await receipts(hamlet, id)).body.user_ids.includes(owner.userId), 'not those who share no read receipts');
  await w.as(othello)('POST', '/messages/flags', { params: { messages: [id], op: 'remove', flag: 'read' } });
  t.notOk((await receipts(hamlet, id)).body.user_ids.includes(othello.userId), 'marking it unread takes one out');
  await w.as(owner)('DELETE', `/users/${polonius.userId}`);
  t.notOk((await receipts(hamlet, id)).body.user_ids.includes(polonius.userId), 'deactivated users are left out');

  await w.as(admin)('DELETE', '/users/me/subscriptions', { params: { subscriptions: ['general'] } });
  const later = await send(hamlet, { type: 'stream', to: 'general', topic: 'Receipts' });
  t.same((await receipts(hamlet, later)).body.user_ids, [], 'a new message: unread by all');
  await w.as(admin)('POST', '/messages/flags', { params: { messages: [later], op: 'add', flag: 'starred' } });
  t.same((await receipts(hamlet, later)).body.user_ids, [admin.userId], 'one who starred it without receiving it holds it as read, as in the reference');

  await subscribe(w.as(othello), ['hidden'], { invite_only: true });
  const hidden = await send(othello, { type: 'stream', to: 'hidden', topic: 'x' });
  const invalid = { result: 'error', msg: 'Invalid message(s)', code: 'BAD_REQUEST' };
  t.same((await receipts(hamlet, hidden)).body, invalid, 'a message the user cannot read');
  t.same((await receipts(hamlet, 999999)).body, invalid, 'an unknown message');
  t.same((await w.asOther(w.other.owner)('GET', `/messages/${id}/read_receipts`)).body, invalid, "another realm's message");

  const dm = await send(hamlet, { type: 'direct', to: [othello.userId] });
  await read(othello, dm);
  t.same((await receipts(hamlet, dm)).body.user_ids, [othello.userId], 'a direct message');
  t.same((await receipts(owner, dm)).body, invalid, 'not to outsiders');
});
