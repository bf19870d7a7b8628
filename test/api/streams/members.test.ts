import t from 'tap';
import { startWorld, streamId, subscribe } from './world.js';

t.test('GET /streams/{stream_id}/members', async (t) => {
  const w = await startWorld(t, { settings: { enable_spectator_access: true } });
  const { owner, admin, hamlet, othello, polonius, bot } = w.root;
  await subscribe(w.as(hamlet), ['secret'], { invite_only: true, principals: [hamlet.userId, othello.userId] });
  await subscribe(w.as(owner), ['open door'], { is_web_public: true });
  const general = await streamId(w.as(owner), 'general');
  const secret = await streamId(w.as(owner), 'secret');
  const openDoor = await streamId(w.as(owner), 'open door');
  const members = (who: typeof owner, id: number) => w.as(who)('GET', `/streams/${id}/members`);

  const everyone = [owner, admin, hamlet, othello, polonius, bot].map((p) => p.userId).sort((a, b) => a - b);
  t.same((await members(hamlet, general)).body, { result: 'success', msg: '', subscribers: everyone }, 'the active subscribers, ascending');
  t.same((await members(polonius, general)).body.subscribers, everyone, "a guest, of their own channel");
  t.same((await members(othello, secret)).body.subscribers, [hamlet.userId, othello.userId].sort((a, b) => a - b), 'a subscriber, of a private channel');
  t.same((await members(admin, secret)).body.subscribers, [hamlet.userId, othello.userId].sort((a, b) => a - b), 'an administrator, of any channel');
  t.match((await members(owner, openDoor)).body.subscribers, [owner.userId], 'a web-public channel');

  t.match((await members(polonius, openDoor)).body, { result: 'error', msg: 'Subscriber data is not available for this channel' }, "a guest, of a web-public channel they are not in");
  const invalid = { result: 'error', msg: 'Invalid channel ID', code: 'BAD_REQUEST' };
  t.same((await members(polonius, secret)).body, invalid, 'a guest, of a private channel');
  const lounge = await subscribe(w.as(owner), ['lounge']).then(() => streamId(w.as(owner), 'lounge'));
  t.same((await members(polonius, lounge)).body, invalid, 'a guest, of a public channel they are not in');
  t.same((await members(w.root.owner, 9999)).body, invalid, 'an unknown channel');
  t.same((await w.asOther(w.other.owner)('GET', `/streams/${general}/members`)).body, invalid, "another realm's channel");

  await w.as(owner)('DELETE', `/users/${othello.userId}`);
  t.same((await members(hamlet, secret)).body.subscribers, [hamlet.userId], 'deactivated users are left out');
});
