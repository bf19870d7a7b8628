import t from 'tap';
import { startWorld, streamId, subscribe } from '../streams/world.js';

/**
 * A bot may send to any channel its owner may (the reference's access_stream_for_send_message):
 * a private channel its owner is subscribed to, and a channel whose can_send_message_group
 * holds its owner. Stoa refused a private channel its owner was subscribed to.
 */
t.test('POST /messages: a bot sends where its owner may', async (t) => {
  const w = await startWorld(t);
  const { owner, hamlet, othello, bot } = w.root;
  const post = (as: typeof bot, to: string) => w.as(as)('POST', '/messages', { params: { type: 'stream', to, topic: 'bots', content: 'beep' } });

  await subscribe(w.as(hamlet), ['hamlet private'], { invite_only: true });
  const sent = await post(bot, 'hamlet private');
  t.equal(sent.status, 200, "hamlet's bot posts to a private channel hamlet is subscribed to");
  const read = await w.as(hamlet)('GET', '/messages', { params: { anchor: 'newest', num_before: 1, num_after: 0, narrow: [['channel', 'hamlet private']] } });
  t.ok(sent.body.id, 'a message was sent');
  t.equal(read.body.messages[0]?.id, sent.body.id, 'and hamlet reads it there');

  await subscribe(w.as(othello), ['othello private'], { invite_only: true });
  const refused = await post(bot, 'othello private');
  t.equal(refused.status, 400, 'not to a private channel its owner is not in');
  t.equal(refused.body.msg, "Not authorized to send to channel 'othello private'", "with the reference's message");

  // can_send_message_group names hamlet only: the bot is not in it, its owner is.
  await subscribe(w.as(owner), ['announce'], { principals: [owner.userId, hamlet.userId, othello.userId] });
  const id = await streamId(w.as(owner), 'announce');
  const patched = await w.as(owner)('PATCH', `/streams/${id}`, { params: { can_send_message_group: { new: { direct_members: [hamlet.userId], direct_subgroups: [] } } } });
  t.equal(patched.status, 200, 'the channel allows hamlet alone to post');
  t.equal((await post(othello, 'announce')).status, 400, 'othello may not');
  t.equal((await post(bot, 'announce')).status, 200, "hamlet's bot may, as hamlet may");

  await w.as(hamlet)('DELETE', '/users/me/subscriptions', { params: { subscriptions: ['hamlet private'] } });
  t.equal((await post(bot, 'hamlet private')).status, 400, 'once hamlet has left the private channel, his bot may not post there either');
});
