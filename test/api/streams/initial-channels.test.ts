import t from 'tap';
import { startWorld } from './world.js';

t.test('a new realm and its default channel', async (t) => {
  const w = await startWorld(t);

  t.test('createInitialChannels: a new realm has the public default channel "general"', async (t) => {
    const res = await w.as(w.root.owner)('GET', '/streams', { params: { include_default: true } });
    const general = res.body.streams.find((s: { name: string }) => s.name === 'general');
    t.ok(general, 'general exists');
    t.equal(general.is_default, true, 'it is a default channel');
    t.equal(general.invite_only, false, 'it is public');
    t.equal(general.creator_id, null, 'no recorded creator, as the reference makes it');
    t.equal(general.can_administer_channel_group, general.can_subscribe_group, 'no creator, so nobody administers it beyond administrators');
  });

  t.test('subscribeToDefaultChannels: every user of every role starts subscribed to it', async (t) => {
    for (const [role, who] of Object.entries(w.root)) {
      const res = await w.as(who)('GET', '/users/me/subscriptions');
      t.same(res.body.subscriptions.map((s: { name: string }) => s.name), ['general'], `${role} is subscribed to general`);
    }
  });

  t.test('each realm has its own default channel', async (t) => {
    const root = await w.as(w.root.owner)('GET', '/get_stream_id', { params: { stream: 'general' } });
    const other = await w.asOther(w.other.owner)('GET', '/get_stream_id', { params: { stream: 'general' } });
    t.equal(root.status, 200, 'root has general');
    t.equal(other.status, 200, 'other has general');
    t.not(root.body.stream_id, other.body.stream_id, 'they are different channels');
  });
});
