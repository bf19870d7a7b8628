import t from 'tap';
import { Shard } from '../../../src/shard/shard.js';
import type { StreamRecord } from '../../../src/model/types.js';
import { checkEvent } from '../../helpers/openapi.js';
import { startTestServer } from '../../helpers/server.js';
import { restart } from '../users/restart.js';

/** first_message_id: set by a channel's first message, moved on when that message is deleted. */
t.test('first_message_id', async (t) => {
  const ts = await startTestServer(t, { heartbeatSeconds: 1 });
  const created = await ts.request('POST', '/users/me/subscriptions', { params: { subscriptions: [{ name: 'annals' }] } });
  t.equal(created.status, 200, 'channel created');
  const id = (await ts.request('GET', '/get_stream_id', { params: { stream: 'annals' } })).body.stream_id as number;
  const firstId = async () => (await ts.request('GET', `/streams/${id}`)).body.stream.first_message_id;
  const send = async (content: string) => (await ts.request('POST', '/messages', { params: { type: 'stream', to: id, topic: 't', content } })).body.id as number;
  const remove = (msgId: number) => ts.request('DELETE', `/messages/${msgId}`);
  const queue = (await ts.request('POST', '/register', { params: { event_types: ['stream'] } })).body.queue_id as string;
  let last = -1;
  const streamEvents = async (unchecked = false) => {
    const res = await ts.request('GET', '/events', { params: { queue_id: queue, last_event_id: last, dont_block: true }, unchecked });
    if (res.body.events.length) last = res.body.events.at(-1).id;
    return res.body.events.filter((e: { type: string }) => e.type === 'stream');
  };

  t.equal(await firstId(), null, 'a channel without messages: null');
  const [m1, m2, m3] = [await send('one'), await send('two'), await send('three')];
  t.equal(await firstId(), m1, 'the first message sent');
  const [announced, ...others] = await streamEvents();
  t.same(others, [], 'one stream event for three messages');
  t.match(announced, { type: 'stream', op: 'update', property: 'first_message_id', value: m1, stream_id: id, name: 'annals' }, 'announced like any property change (the reference does not, leaving non-recipients stale)');
  t.doesNotThrow(() => checkEvent(announced), 'matches the reference event schema');

  await remove(m2);
  t.equal(await firstId(), m1, 'deleting a later message changes nothing');
  t.same(await streamEvents(), [], 'and sends nothing');

  await remove(m1);
  const [event, ...rest] = await streamEvents();
  t.same(rest, [], 'one stream event');
  t.same({ ...event, id: undefined }, { type: 'stream', op: 'update', property: 'first_message_id', value: m3, stream_id: id, name: 'annals', id: undefined }, 'deleting the first: an update to the next one');
  t.doesNotThrow(() => checkEvent(event), 'matches the reference event schema');
  t.equal(await firstId(), m3, 'GET /streams/{id} agrees');

  await remove(m3);
  // The reference sends null here too (its first_message_id becomes None), but its schema's
  // `value` allows no null: the one response not checked against it.
  t.match(await streamEvents(true), [{ property: 'first_message_id', value: null }], 'the last one gone: null');
  t.equal(await firstId(), null, 'GET agrees');

  t.test('a store written before the field existed: derived at start', async (t) => {
    const m4 = await send('four');
    await send('five');
    await restart(t, ts, async (config) => {
      const shard = Shard.open(0, config);
      const key = [...shard.store.streams.getKeys({})].find((k) => (k as number[])[1] === id)!;
      const { firstMessageId: _dropped, ...old } = shard.store.streams.get(key) as StreamRecord;
      await shard.batch().put(shard.store.streams, key as number[], old).commit();
      await shard.close();
    });
    t.equal(await firstId(), m4, 'the oldest message of the channel');
  });
});
