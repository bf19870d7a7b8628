import t from 'tap';
import { longPoll } from '../../helpers/long-poll.js';
import { createUser, startTestServer, type Credentials, type TestServer } from '../../helpers/server.js';

/**
 * Event queues are bounded: a user holds at most eventQueues.maxPerUser queues (one more drops
 * their least recently used), and a queue holds at most eventQueues.maxPendingEvents events
 * its client has not acknowledged (one more drops it). A dropped queue's client gets
 * BAD_EVENT_QUEUE_ID and registers again.
 */

/** A GET /events that parks, with a way to hang up. */
const park = (ts: TestServer, creds: Credentials, queueId: string) => longPoll(ts, creds, { queue_id: queueId, last_event_id: -1 });

t.test('event queue caps', async (t) => {
  const ts = await startTestServer(t, { eventQueues: { maxPerUser: 2, maxPendingEvents: 10 }, heartbeatSeconds: 60 });
  const register = async (creds: Credentials, params: Record<string, unknown> = {}) => {
    const res = await ts.as(creds)('POST', '/register', { params: { event_types: ['message'], ...params } });
    t.equal(res.status, 200, 'registered');
    return res.body.queue_id as string;
  };
  const poll = (creds: Credentials, queueId: string, lastEventId = -1) => ts.as(creds)('GET', '/events', { params: { queue_id: queueId, last_event_id: lastEventId, dont_block: true } });
  const send = (content: string) => ts.request('POST', '/messages', { params: { type: 'stream', to: 'general', topic: 'caps', content } });

  t.test('one queue too many drops the least recently used', async (t) => {
    const user = await createUser(ts, 'lru@example.com');
    const first = await register(user);
    const second = await register(user);
    t.equal((await poll(user, first)).status, 200, 'the first is polled: now the second is the least recently used');
    const third = await register(user);
    const gone = await poll(user, second);
    t.equal(gone.status, 400, 'the second was dropped');
    t.same(gone.body, { result: 'error', msg: `Bad event queue ID: ${second}`, code: 'BAD_EVENT_QUEUE_ID', queue_id: second }, 'BAD_EVENT_QUEUE_ID, as for an expired queue');
    t.equal((await poll(user, first)).status, 200, 'the first is kept');
    t.equal((await poll(user, third)).status, 200, 'the new one works');
  });

  t.test('a queue with a parked poll is kept before an idle one', async (t) => {
    const user = await createUser(ts, 'parked@example.com');
    const older = await register(user);
    const newer = await register(user);
    const parked = park(ts, user, older);
    t.teardown(() => parked.hangUp());
    // Polled after the park began: the newer queue is the more recently used, and idle.
    await new Promise((r) => setTimeout(r, 100));
    t.equal((await poll(user, newer)).status, 200, 'the newer queue is polled');
    await register(user);
    t.equal((await poll(user, newer)).status, 400, 'the idle queue went, though it was used last');
    await send('wakes the parked poll');
    const woken = await parked.answer;
    t.equal(woken.status, 200, 'the parked poll is answered with the event');
    t.equal(woken.body.events[0]?.message?.content, 'wakes the parked poll', 'its queue lives on');
  });

  t.test('a parked poll on a dropped queue is answered BAD_EVENT_QUEUE_ID', async (t) => {
    const user = await createUser(ts, 'both-parked@example.com');
    const a = await register(user);
    const b = await register(user);
    const pa = park(ts, user, a);
    await new Promise((r) => setTimeout(r, 100));
    const pb = park(ts, user, b);
    t.teardown(() => (pa.hangUp(), pb.hangUp()));
    await new Promise((r) => setTimeout(r, 100));
    await register(user);
    const dropped = await pa.answer;
    t.equal(dropped.status, 400, 'the older parked queue was dropped, and its poll answered at once');
    t.equal(dropped.body.code, 'BAD_EVENT_QUEUE_ID', 'BAD_EVENT_QUEUE_ID');
  });

  t.test('more unacknowledged events than the cap drop the queue', async (t) => {
    const user = await createUser(ts, 'slow@example.com');
    const idle = await register(user);
    const acking = await register(user);
    let last = -1;
    for (let i = 0; i < 11; i++) {
      t.equal((await send(`m${i}`)).status, 200, `send ${i}`);
      if (i % 4 === 3) {
        const res = await poll(user, acking, last);
        last = res.body.events.at(-1)?.id ?? last;
      }
    }
    const gone = await poll(user, idle);
    t.equal(gone.status, 400, 'the queue that never acknowledged holds 11 > 10: dropped');
    t.equal(gone.body.code, 'BAD_EVENT_QUEUE_ID', 'BAD_EVENT_QUEUE_ID');
    const kept = await poll(user, acking, last);
    t.equal(kept.status, 200, 'the queue whose client acknowledges lives on');
    t.same(kept.body.events.map((e: { message: { content: string } }) => e.message.content), ['m8', 'm9', 'm10'], 'with what it has not acknowledged');
    const again = await register(user);
    t.equal((await poll(user, again)).status, 200, 'the client registers again, as real clients do on BAD_EVENT_QUEUE_ID');
  });

  t.test('dropped queues stay dropped after a restart', async (t) => {
    const user = await createUser(ts, 'restart@example.com');
    const dropped = await register(user);
    const kept = [await register(user), await register(user)];
    // The server only: ts.close() would also remove the data directory.
    await ts.server.close();
    const again = await startTestServer(t, { eventQueues: { maxPerUser: 2, maxPendingEvents: 10 } }, { dataDir: ts.dataDir });
    t.equal((await again.as(user)('GET', '/events', { params: { queue_id: dropped, dont_block: true } })).status, 400, 'the dropped queue is gone');
    for (const id of kept) t.equal((await again.as(user)('GET', '/events', { params: { queue_id: id, dont_block: true } })).status, 200, 'the others are restored');
  });
});
