import t from 'tap';
import { startWorld, streamId, subscribe } from './world.js';

t.test('GET /streams/{stream_id}', async (t) => {
  const w = await startWorld(t);
  const { owner, admin, hamlet, othello, polonius } = w.root;
  await subscribe(w.as(hamlet), ['Verona'], { subscriptions: [{ name: 'Verona', description: 'Fair <Verona> & more' }] });
  await subscribe(w.as(hamlet), ['secret'], { invite_only: true });
  await subscribe(w.asOther(w.other.hamlet), ['elsewhere']);
  const verona = await streamId(w.as(owner), 'Verona');
  const secret = await streamId(w.as(owner), 'secret');
  const elsewhere = await streamId(w.asOther(w.other.owner), 'elsewhere');
  const invalid = { result: 'error', msg: 'Invalid channel ID', code: 'BAD_REQUEST' };

  t.test('GET /streams/{stream_id}: returns the channel', async (t) => {
    const res = await w.as(othello)('GET', `/streams/${verona}`);
    t.equal(res.status, 200, 'status 200');
    t.equal(res.body.stream.stream_id, verona, 'the channel asked for');
    t.equal(res.body.stream.name, 'Verona', 'its name');
    t.equal(res.body.stream.description, 'Fair <Verona> & more', 'the description as written');
    t.equal(res.body.stream.rendered_description, '<p>Fair &lt;Verona&gt; &amp; more</p>', 'the description escaped into a paragraph');
    t.same(res.body.stream.can_administer_channel_group, { direct_members: [hamlet.userId], direct_subgroups: [] }, 'the creator administers the channel');
  });

  t.test('GET /streams/{stream_id}: a private channel is visible to its subscribers and to administrators', async (t) => {
    const mine = await w.as(hamlet)('GET', `/streams/${secret}`);
    t.equal(mine.status, 200, 'a subscriber sees it');
    t.equal(mine.body.stream.invite_only, true, 'it is private');
    t.equal(mine.body.stream.history_public_to_subscribers, false, 'private channels default to protected history');
    const adminView = await w.as(admin)('GET', `/streams/${secret}`);
    t.equal(adminView.status, 200, 'an administrator has metadata access');
  });

  t.test('GET /streams/{stream_id}: an inaccessible private channel looks like an unknown id', async (t) => {
    const hidden = await w.as(othello)('GET', `/streams/${secret}`);
    t.equal(hidden.status, 400, 'status 400');
    t.same(hidden.body, invalid, 'Invalid channel ID');
    const unknown = await w.as(othello)('GET', '/streams/99999');
    t.same(unknown.body, invalid, 'the same answer for an id that does not exist');
  });

  t.test('GET /streams/{stream_id}: a guest cannot see a public channel it is not in', async (t) => {
    const res = await w.as(polonius)('GET', `/streams/${verona}`);
    t.same(res.body, invalid, 'guests have no access to unsubscribed public channels');
  });

  t.test("GET /streams/{stream_id}: another realm's channel is unknown", async (t) => {
    const res = await w.as(owner)('GET', `/streams/${elsewhere}`);
    t.same(res.body, invalid, 'the id of a channel of realm other is invalid here');
    const theirs = await w.asOther(w.other.othello)('GET', `/streams/${elsewhere}`);
    t.equal(theirs.status, 200, 'but fine in its own realm');
  });

  t.test('GET /streams/{stream_id}: a non-integer id names no endpoint, as the reference\'s <int:stream_id>', async (t) => {
    const res = await w.as(hamlet)('GET', '/streams/abc');
    t.equal(res.status, 404, 'status 404');
    t.equal(res.body.result, 'error', 'error envelope');
  });
});
