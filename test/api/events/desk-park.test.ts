import t from 'tap';
import { request as httpRequest } from 'node:http';
import { longPoll } from '../../helpers/long-poll.js';
import { createUser, startTestServer, type Credentials } from '../../helpers/server.js';

/**
 * A queue's first poll through the long-poll path, with nothing to answer it, parks at a desk
 * the shard grants with it (api/events/desk.ts grant, `parked`): the shard keeps no request for
 * it, only the queue's heartbeat. Whatever happens to that poll (events, a heartbeat, a client
 * that hangs up, the queue deleted or expired, credentials changed), its client gets every event
 * of the queue once, in order, as it would from a poll parked in the shard.
 */

const HEARTBEAT = 4;


const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Event = { id: number; type: string; message?: { id: number; content: string } };

t.test('a first poll parked at its desk', async (t) => {
  const ts = await startTestServer(t, { heartbeatSeconds: HEARTBEAT });
  let users = 0;
  const setup = async () => {
    const user = await createUser(ts, `parker${++users}@example.com`);
    const reg = await ts.as(user)('POST', '/register', { params: { event_types: ['message', 'heartbeat'] } });
    t.equal(reg.status, 200, 'registered');
    return { user, queueId: reg.body.queue_id as string };
  };
  const send = async (content: string) => {
    const res = await ts.request('POST', '/messages', { params: { type: 'stream', to: 'general', topic: 'park', content } });
    if (res.status !== 200) throw new Error(JSON.stringify(res.body));
    return res.body.id as number;
  };
  /** Polls on from `last` until `count` messages came; every event seen, in order. */
  const collect = async (user: Credentials, queueId: string, last: number, count: number) => {
    const seen: Event[] = [];
    while (seen.filter((e) => e.type === 'message').length < count) {
      const got = await longPoll(ts, user, { queue_id: queueId, last_event_id: last }).answer;
      if (got.status !== 200) throw new Error(JSON.stringify(got.body));
      for (const e of got.body.events as Event[]) seen.push(e);
      if (seen.length > 0) last = seen[seen.length - 1].id;
    }
    return seen;
  };
  const once = (t: { ok(v: unknown, m: string): void; same(a: unknown, b: unknown, m: string): void }, events: Event[], contents: string[]) => {
    const ids = events.map((e) => e.id);
    t.ok(ids.every((id, i) => i === 0 || id > ids[i - 1]), 'event ids rise: nothing twice, nothing out of order');
    t.same(events.filter((e) => e.type === 'message').map((e) => e.message!.content), contents, 'every message once, in order');
  };

  t.test('is answered by the next event, and its queue goes on', async (t) => {
    const { user, queueId } = await setup();
    const first = longPoll(ts, user, { queue_id: queueId, last_event_id: -1 });
    await sleep(300);
    await send('one');
    const woken = await first.answer;
    t.equal(woken.status, 200);
    const events = woken.body.events as Event[];
    for (const content of ['two', 'three']) await send(content);
    once(t, [...events, ...(await collect(user, queueId, events.at(-1)!.id, 2))], ['one', 'two', 'three']);
  });

  t.test('sees every event sent while it was on its way to the shard', async (t) => {
    const { user, queueId } = await setup();
    const first = longPoll(ts, user, { queue_id: queueId, last_event_id: -1 });
    const sent = await Promise.all(Array.from({ length: 8 }, (_, i) => send(`racing ${i}`)));
    const got = await first.answer;
    t.equal(got.status, 200);
    const events = got.body.events as Event[];
    const rest = events.length >= 8 ? [] : await collect(user, queueId, events.at(-1)!.id, 8 - events.length);
    const all = [...events, ...rest];
    const byId = [...sent].sort((a, b) => a - b);
    t.same(all.map((e) => e.message!.id), byId, 'each message once, in the order of their ids');
    once(t, all, byId.map((id) => `racing ${sent.indexOf(id)}`));
  });

  t.test('ends with a heartbeat', async (t) => {
    const { user, queueId } = await setup();
    const got = await longPoll(ts, user, { queue_id: queueId, last_event_id: -1 }).answer;
    t.equal(got.status, 200);
    t.same(got.body.events.map((e: Event) => e.type), ['heartbeat'], 'the heartbeat ends the poll');
    await send('after the heartbeat');
    once(t, await collect(user, queueId, got.body.events[0].id, 1), ['after the heartbeat']);
  });

  // The shard counts a queue as polled (its heartbeat armed, its expiry not) while a poll is
  // parked at its desk, and lets it age once the client has gone: /metrics' stoa_parked_polls.
  const parkedPolls = async () => {
    const text = await new Promise<string>((resolve, reject) => {
      httpRequest({ host: '127.0.0.1', port: ts.port, path: '/metrics', headers: { host: ts.server.config.externalHost }, agent: false }, (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve(body));
      })
        .on('error', reject)
        .end();
    });
    return Number(/^stoa_parked_polls(?:\{[^}]*\})? (\S+)$/m.exec(text)?.[1] ?? NaN);
  };
  const until = async (ok: () => Promise<boolean>) => {
    for (const deadline = Date.now() + 30_000; Date.now() < deadline && !(await ok()); ) await sleep(100);
  };

  t.test('whose client hangs up: the queue keeps its events and ages', async (t) => {
    const { user, queueId } = await setup();
    const before = await parkedPolls();
    const first = longPoll(ts, user, { queue_id: queueId, last_event_id: -1 });
    await until(async () => (await parkedPolls()) > before);
    t.equal(await parkedPolls(), before + 1, 'counted as parked');
    first.hangUp();
    t.equal((await first.answer).status, 0, 'hung up');
    await until(async () => (await parkedPolls()) === before);
    t.equal(await parkedPolls(), before, 'no longer parked: the queue ages');
    await send('while away');
    once(t, await collect(user, queueId, -1, 1), ['while away']);
  });

  t.test('whose client hangs up before the answer comes back: the queue ages all the same', async (t) => {
    const before = await parkedPolls();
    for (let i = 0; i < 10; i++) {
      const { user, queueId } = await setup();
      const first = longPoll(ts, user, { queue_id: queueId, last_event_id: -1 });
      // Soon: the connection may close before the shard's answer reaches the front end.
      await sleep(i * 2);
      first.hangUp();
      await first.answer;
    }
    await until(async () => (await parkedPolls()) === before);
    t.equal(await parkedPolls(), before, 'none left counted as parked');
  });

  t.test('of a queue deleted meanwhile ends empty', async (t) => {
    const { user, queueId } = await setup();
    const first = longPoll(ts, user, { queue_id: queueId, last_event_id: -1 });
    await sleep(300);
    const del = await ts.as(user)('DELETE', '/events', { params: { queue_id: queueId } });
    t.equal(del.status, 200, 'deleted');
    const ended = await first.answer;
    t.equal(ended.status, 200);
    t.same(ended.body.events, [], 'the parked poll ends with no events');
    const gone = await longPoll(ts, user, { queue_id: queueId, last_event_id: -1 }).answer;
    t.equal(gone.body.code, 'BAD_EVENT_QUEUE_ID', 'the next poll is told the queue is gone');
  });

  t.test('ends when its user changes, and the old key is refused', async (t) => {
    const { user, queueId } = await setup();
    const first = longPoll(ts, user, { queue_id: queueId, last_event_id: -1 });
    await sleep(300);
    const renamed = await ts.as(user)('PATCH', '/settings', { params: { full_name: 'Parker Renamed' } });
    t.equal(renamed.status, 200, 'a user record changed');
    const ended = await first.answer;
    t.equal(ended.status, 200);
    const events = ended.body.events as Event[];
    t.notOk(events.some((e) => e.type === 'message'), 'the poll ends without messages');
    await send('after the change');
    const changed = await collect(user, queueId, events.at(-1)?.id ?? -1, 1);
    once(t, changed, ['after the change']);
    const last = changed.at(-1)!.id;

    const again = longPoll(ts, user, { queue_id: queueId, last_event_id: last });
    await sleep(300);
    const key = await ts.as(user)('POST', '/users/me/api_key/regenerate');
    t.equal(key.status, 200, 'a new API key');
    const ended2 = await again.answer;
    t.same(ended2.body.events, [], 'the parked poll ends with no events');
    const old = await longPoll(ts, user, { queue_id: queueId, last_event_id: last }).answer;
    t.equal(old.status, 401, 'the old key is refused, not answered by a desk');
    const fresh = { email: user.email, apiKey: key.body.api_key as string };
    await send('with the new key');
    once(t, await collect(fresh, queueId, last, 1), ['with the new key']);
  });
});
