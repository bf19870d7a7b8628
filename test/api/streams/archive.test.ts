import t from 'tap';
import { startTestServer } from '../../helpers/server.js';
import { listen } from './queues.js';
import { startWorld, streamId, subscribe } from './world.js';

const ARCHIVED_OK = { client_capabilities: { archived_channels: true } };

t.test('DELETE /streams/{stream_id} archives a channel', async (t) => {
  const w = await startWorld(t);
  const { owner, admin, hamlet, othello, polonius } = w.root;
  await subscribe(w.as(othello), ['lounge']);
  await subscribe(w.as(hamlet), ['lounge']);
  const lounge = await streamId(w.as(owner), 'lounge');
  const general = await streamId(w.as(owner), 'general');
  const archive = (who: typeof owner, id: number) => w.as(who)('DELETE', `/streams/${id}`);

  t.test('permissions', async (t) => {
    t.match((await archive(hamlet, lounge)).body, { result: 'error', msg: 'You do not have permission to administer this channel.' }, 'a member who does not administer it may not');
    t.match((await archive(polonius, lounge)).body, { result: 'error', msg: 'Invalid channel ID' }, 'a guest outside it is told it does not exist');
    t.match((await archive(admin, 9999)).body, { result: 'error', msg: 'Invalid channel ID' }, 'an unknown id');
  });

  t.test('archiving: events for clients with and without archived channels', async (t) => {
    const modern = await listen(w.as(hamlet), ARCHIVED_OK);
    const legacy = await listen(w.as(hamlet));
    const guest = await listen(w.as(polonius));
    const res = await archive(othello, lounge);
    t.equal(res.status, 200, 'its creator archives it');
    t.same(await modern.drain(t), [{ type: 'stream', op: 'update', stream_id: lounge, name: 'lounge', property: 'is_archived', value: true }], 'a client that shows archived channels hears it is archived');
    t.same(await legacy.drain(t), [{ type: 'stream', op: 'delete', streams: [{ stream_id: lounge }], stream_ids: [lounge] }], 'another is told it is gone');
    t.same(await guest.drain(t), [], 'a guest who never saw it hears nothing');
    t.match((await archive(admin, lounge)).body, { result: 'error', msg: 'Channel is already deactivated' }, 'archiving twice');
  });

  t.test('subscribers keep an archived channel, shown only to clients that ask', async (t) => {
    const list = await w.as(hamlet)('GET', '/users/me/subscriptions');
    t.notOk(list.body.subscriptions.some((s: { stream_id: number }) => s.stream_id === lounge), 'GET /users/me/subscriptions leaves it out');
    const modern = await w.as(hamlet)('POST', '/register', { params: { fetch_event_types: ['subscription', 'stream'], ...ARCHIVED_OK } });
    t.match(modern.body.subscriptions.find((s: { stream_id: number }) => s.stream_id === lounge), { is_archived: true }, 'still subscribed, archived');
    t.match(modern.body.streams.find((s: { stream_id: number }) => s.stream_id === lounge), { is_archived: true }, 'listed as archived');
    const legacy = await w.as(hamlet)('POST', '/register', { params: { fetch_event_types: ['subscription', 'stream'] } });
    t.notOk(legacy.body.subscriptions.some((s: { stream_id: number }) => s.stream_id === lounge), 'not for other clients');
    const all = await w.as(hamlet)('GET', '/streams', { params: { exclude_archived: false } });
    t.match(all.body.streams.find((s: { stream_id: number }) => s.stream_id === lounge), { is_archived: true }, 'GET /streams lists it when asked');
    const props = await w.as(hamlet)('POST', '/users/me/subscriptions/properties', { params: { subscription_data: [{ stream_id: lounge, property: 'pin_to_top', value: true }] } });
    t.equal(props.status, 200, 'its subscription settings can still change');
  });

  t.test('nobody can post to an archived channel', async (t) => {
    for (const who of [hamlet, owner]) {
      const res = await w.as(who)('POST', '/messages', { params: { type: 'stream', to: 'lounge', topic: 't', content: 'hello?' } });
      t.match(res.body, { result: 'error', msg: "Not authorized to send to channel 'lounge'" }, `${who.email} is refused`);
    }
  });

  t.test('later changes reach only clients that show archived channels', async (t) => {
    const modern = await listen(w.as(hamlet), ARCHIVED_OK);
    const legacy = await listen(w.as(hamlet));
    t.equal((await w.as(othello)('PATCH', `/streams/${lounge}`, { params: { description: 'the old lounge' } })).status, 200, 'an archived channel can be described');
    t.same((await modern.drain(t)).map((e) => e.property), ['description'], 'clients that show archived channels hear it');
    t.same(await legacy.drain(t), [], 'others do not');
  });

  t.test('an archived default channel stops being one', async (t) => {
    const hq = await listen(w.as(hamlet));
    t.equal((await archive(owner, general)).status, 200, 'the owner archives general');
    t.same((await hq.drain(t)).map((e) => `${e.type}/${e.op ?? ''}`), ['default_streams/', 'stream/delete'], 'members hear the default list change first');
    const reg = await w.as(hamlet)('POST', '/register', { params: { fetch_event_types: ['default_streams'] } });
    t.same(reg.body.realm_default_streams, [], 'no default channels are left');
  });

  t.test('everything survives a restart', async (t) => {
    await w.ts.close();
    const ts = await startTestServer(t, {}, { dataDir: w.ts.dataDir });
    const all = await ts.as(owner)('GET', '/streams', { params: { exclude_archived: false, include_default: true } });
    const byId = (id: number) => all.body.streams.find((s: { stream_id: number }) => s.stream_id === id);
    t.match(byId(lounge), { is_archived: true, description: 'the old lounge', is_default: false }, 'lounge: archived, described');
    t.match(byId(general), { is_archived: true, is_default: false }, 'general: archived, no longer default');
    const reg = await ts.as(hamlet)('POST', '/register', { params: { fetch_event_types: ['subscription'], ...ARCHIVED_OK } });
    t.match(reg.body.subscriptions.find((s: { stream_id: number }) => s.stream_id === lounge), { pin_to_top: true, is_archived: true }, 'the subscription, as it was left');
  });
});

t.test('channel changes survive a restart', async (t) => {
  const w = await startWorld(t);
  const { owner, hamlet } = w.root;
  await subscribe(w.as(hamlet), ['lounge']);
  const lounge = await streamId(w.as(owner), 'lounge');
  const admins = (await w.as(owner)('GET', `/streams/${lounge}`)).body.stream.can_remove_subscribers_group;
  const res = await w.as(owner)('PATCH', `/streams/${lounge}`, {
    params: { new_name: 'Salon', description: 'Quiet *please*', is_private: true, message_retention_days: 7, can_send_message_group: { new: admins } },
  });
  t.equal(res.status, 200, 'changed');
  await w.ts.close();
  const ts = await startTestServer(t, {}, { dataDir: w.ts.dataDir });
  const s = (await ts.as(owner)('GET', `/streams/${lounge}`)).body.stream;
  t.match(s, {
    name: 'Salon',
    description: 'Quiet *please*',
    rendered_description: '<p>Quiet <em>please</em></p>',
    invite_only: true,
    history_public_to_subscribers: false,
    message_retention_days: 7,
    can_send_message_group: admins,
    stream_post_policy: 2,
  }, 'as they were made');
  const byName = await ts.as(hamlet)('GET', '/get_stream_id', { params: { stream: 'Salon' } });
  t.equal(byName.body.stream_id, lounge, 'found by its new name');
  const old = await ts.as(hamlet)('GET', '/get_stream_id', { params: { stream: 'lounge' } });
  t.equal(old.body.msg, "Invalid channel name 'lounge'", 'not by its old one');
});
