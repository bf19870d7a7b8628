import t from 'tap';
import { startWorld, streamId, subscribe } from '../streams/world.js';

t.test('channel privacy across users and realms', async (t) => {
  const w = await startWorld(t);
  const { owner, hamlet, othello, polonius } = w.root;
  await subscribe(w.as(hamlet), ['plans'], { invite_only: true, subscriptions: [{ name: 'plans', description: 'top secret' }] });
  const plans = await streamId(w.as(owner), 'plans');

  t.test('a private channel is invisible to a non-subscriber everywhere', async (t) => {
    for (const [who, creds] of [['othello', othello], ['polonius', polonius]] as const) {
      const list = await w.as(creds)('GET', '/streams', { params: { include_all: true, include_web_public: true, include_can_access_content: true } });
      t.notOk(list.body.streams.some((s: { name: string }) => s.name === 'plans'), `${who}: not in GET /streams`);
      const subs = await w.as(creds)('GET', '/users/me/subscriptions', { params: { include_subscribers: true } });
      t.notOk(subs.body.subscriptions.some((s: { name: string }) => s.name === 'plans'), `${who}: not in GET /users/me/subscriptions`);
      const byId = await w.as(creds)('GET', `/streams/${plans}`);
      t.equal(byId.body.msg, 'Invalid channel ID', `${who}: GET /streams/{id} says invalid`);
      const byName = await w.as(creds)('GET', '/get_stream_id', { params: { stream: 'plans' } });
      t.equal(byName.body.msg, "Invalid channel name 'plans'", `${who}: GET /get_stream_id says invalid`);
      const leave = await w.as(creds)('DELETE', '/users/me/subscriptions', { params: { subscriptions: ['plans'] } });
      t.equal(leave.body.code, 'STREAM_DOES_NOT_EXIST', `${who}: DELETE says it does not exist`);
    }
  });

  t.test('a non-subscriber cannot join a private channel, nor see who is in it', async (t) => {
    const join = await w.as(othello)('POST', '/users/me/subscriptions', { params: { subscriptions: [{ name: 'plans' }] } });
    t.equal(join.body.msg, 'Unable to access channel (plans).', 'othello cannot join it');
    const subs = await w.as(othello)('GET', '/users/me/subscriptions', { params: { include_subscribers: true } });
    const seen = subs.body.subscriptions.flatMap((s: { subscribers: number[] }) => s.subscribers);
    t.ok(seen.every((id: number) => subs.body.subscriptions.some((s: { name: string; subscribers: number[] }) => s.name === 'general' && s.subscribers.includes(id))), 'othello only sees subscribers of channels he is in');
  });

  t.test('realms do not share channel names or ids', async (t) => {
    const res = await w.asOther(w.other.hamlet)('POST', '/users/me/subscriptions', { params: { subscriptions: [{ name: 'plans' }] } });
    t.equal(res.status, 200, 'realm other can create its own "plans"');
    t.same(res.body.subscribed, { [w.other.hamlet.userId]: ['plans'] }, 'and join it: a new channel');
    const theirs = await w.asOther(w.other.hamlet)('GET', '/get_stream_id', { params: { stream: 'plans' } });
    t.not(theirs.body.stream_id, plans, 'a different channel id');
    const crossId = await w.asOther(w.other.owner)('GET', `/streams/${plans}`);
    t.equal(crossId.body.msg, 'Invalid channel ID', "root's id means nothing in realm other, even to its owner");
    const rootView = await w.as(hamlet)('GET', '/streams/' + theirs.body.stream_id);
    t.equal(rootView.body.msg, 'Invalid channel ID', "and realm other's id means nothing in root");
    const mine = await w.as(hamlet)('GET', '/users/me/subscriptions', { params: { include_subscribers: true } });
    const p = mine.body.subscriptions.find((s: { name: string }) => s.name === 'plans');
    t.same(p.subscribers, [hamlet.userId], "root's plans has only root's subscriber");
    t.equal(p.description, 'top secret', 'and its own description');
  });
});
