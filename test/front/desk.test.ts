import { get } from 'node:http';
import t, { type Test } from 'tap';
import { createUser, startTestServer, type Credentials, type TestServer } from '../helpers/server.js';

/**
 * GET /events with its parameters in the query string is answered, once its queue's first poll
 * has reached the shard, at the front end's desk for that queue (host/desk.ts), without the
 * shard. A poll with a form body goes through Koa to the shard every time. Each case runs on both
 * paths and expects the same answers: the desk must be invisible to clients, however the queue,
 * the credentials or the budget change between two polls.
 */
type Path = 'query' | 'form';
const PATHS: Path[] = ['query', 'form'];

function poller(ts: TestServer, creds: Credentials, path: Path) {
  return (params: Record<string, unknown>) => ts.request('GET', '/events', { params, encoding: path, auth: creds });
}

async function register(ts: TestServer, creds: Credentials, params: Record<string, unknown> = { event_types: ['message'] }): Promise<string> {
  const reg = await ts.request('POST', '/register', { params, auth: creds });
  if (reg.status !== 200) throw new Error(JSON.stringify(reg.body));
  return reg.body.queue_id as string;
}

const send = (ts: TestServer, content: string, creds?: Credentials) =>
  ts.request('POST', '/messages', { params: { type: 'stream', to: 'general', topic: 'desk', content }, ...(creds ? { auth: creds } : {}) });

const contents = (body: { events: { type: string; message?: { content: string } }[] }) => body.events.map((e) => (e.type === 'message' ? e.message!.content : e.type));

t.test('the desk answers polls as the shard does', async (t) => {
  const ts = await startTestServer(t, { heartbeatSeconds: 2 });
  for (const path of PATHS) {
    t.test(`${path}: events, acknowledgements, parking and errors`, async (t) => {
      const user = await createUser(ts, `poller-${path}@example.com`);
      const queueId = await register(ts, user);
      const poll = poller(ts, user, path);
      const first = await poll({ queue_id: queueId, last_event_id: -1, dont_block: true });
      t.same(first.body.events, [], 'an empty queue answers at once with dont_block');

      // Parked, then woken by a send.
      const parked = poll({ queue_id: queueId, last_event_id: -1 });
      await new Promise((r) => setTimeout(r, 300));
      await send(ts, `${path} one`);
      const woken = await parked;
      t.same(contents(woken.body), [`${path} one`], 'a parked poll is answered with the event');
      t.equal(woken.body.queue_id, queueId, 'with its queue id');
      const firstId = woken.body.events[0].id as number;

      await send(ts, `${path} two`);
      await send(ts, `${path} three`);
      const again = await poll({ queue_id: queueId, last_event_id: -1 });
      t.same(contents(again.body), [`${path} one`, `${path} two`, `${path} three`], 'unacknowledged events come again');
      const ids = again.body.events.map((e: { id: number }) => e.id);
      t.same(ids, [firstId, firstId + 1, firstId + 2], 'with the same ids');

      const acked = await poll({ queue_id: queueId, last_event_id: ids[0], dont_block: true });
      t.same(contents(acked.body), [`${path} two`, `${path} three`], 'acknowledged events are gone');
      const pruned = await poll({ queue_id: queueId, last_event_id: -1, dont_block: true });
      t.equal(pruned.status, 400, 'acknowledging below what was pruned is an error');
      t.equal(pruned.body.msg, `An event newer than -1 has already been pruned!`, "with the reference's message");
      const beyond = await poll({ queue_id: queueId, last_event_id: ids[2] + 5, dont_block: true });
      t.equal(beyond.status, 400, 'an id the queue never had is an error');
      t.equal(beyond.body.msg, `Event ${ids[2] + 5} was not in this queue`, "with the reference's message");
      const odd = await poll({ queue_id: queueId, last_event_id: ids[2], dont_block: true, user_client: 'test' });
      t.same(odd.body.ignored_parameters_unsupported, ['user_client'], 'an unknown parameter is named as ignored');
      t.same(odd.body.events, [], 'and the poll is answered');
      const spelled = await poll({ queue_id: queueId, last_event_id: `0${ids[2]}`, dont_block: 'true' });
      t.equal(spelled.status, 200, 'an odd spelling of an id is read as the shard reads it');

      if (path === 'query') {
        // Not plain for a desk (a repeated key, the front end's own prefix): the shard reads
        // them as Koa's path does, the last value winning and `__` names dropped.
        const raw = (query: string) =>
          fetch(`http://127.0.0.1:${ts.port}/api/v1/events?${query}`, { headers: { authorization: `Basic ${Buffer.from(`${user.email}:${user.apiKey}`).toString('base64')}` } }).then(async (r) => ({ status: r.status, body: await r.json() }));
        const repeated = await raw(`queue_id=nope&queue_id=${queueId}&last_event_id=${ids[2]}&dont_block=true`);
        t.equal(repeated.status, 200, 'a repeated key: its last value counts');
        t.same(repeated.body.events, [], 'and the poll is answered');
        const internal = await raw(`queue_id=${queueId}&last_event_id=${ids[2]}&dont_block=true&__files=x`);
        t.equal(internal.status, 200, "a name with the front end's prefix is dropped");
        t.same(internal.body.ignored_parameters_unsupported, undefined, 'and not named as ignored');
        const stillAtDesk = await poll({ queue_id: queueId, last_event_id: ids[2], dont_block: true });
        t.same(stillAtDesk.body.events, [], 'a plain poll after them is answered as before');
      }

      // A heartbeat reaches a poll parked with nothing to say.
      const hb = await poll({ queue_id: queueId, last_event_id: ids[2] });
      t.same(contents(hb.body), ['heartbeat'], 'a parked poll gets its heartbeat');
      const after = await poll({ queue_id: queueId, last_event_id: hb.body.events[0].id, dont_block: true });
      t.same(after.body.events, [], 'the heartbeat is acknowledged like any event');

      // A new poll finishes the one parked before it.
      const older = poll({ queue_id: queueId, last_event_id: hb.body.events[0].id });
      await new Promise((r) => setTimeout(r, 300));
      const newer = poll({ queue_id: queueId, last_event_id: hb.body.events[0].id });
      const finished = await older;
      t.same(finished.body.events, [], 'the older poll ends with no events');
      await send(ts, `${path} four`);
      t.same(contents((await newer).body), [`${path} four`], 'the newer one gets the next event');
    });
  }
});

t.test('a desk goes with the queue and with the credentials', async (t) => {
  const ts = await startTestServer(t, { heartbeatSeconds: 3 });
  for (const path of PATHS) {
    t.test(`${path}: DELETE /events`, async (t) => {
      const user = await createUser(ts, `deleter-${path}@example.com`);
      const queueId = await register(ts, user);
      const poll = poller(ts, user, path);
      await poll({ queue_id: queueId, last_event_id: -1, dont_block: true });
      const parked = poll({ queue_id: queueId, last_event_id: -1 });
      await new Promise((r) => setTimeout(r, 300));
      const del = await ts.request('DELETE', '/events', { params: { queue_id: queueId }, auth: user });
      t.equal(del.status, 200, 'the queue is deleted');
      const ended = await parked;
      t.equal(ended.status, 200, 'the parked poll ends');
      t.same(ended.body.events, [], 'with no events');
      const gone = await poll({ queue_id: queueId, last_event_id: -1, dont_block: true });
      t.equal(gone.body.code, 'BAD_EVENT_QUEUE_ID', 'the next poll is told the queue is gone');
    });

    t.test(`${path}: a new API key`, async (t) => {
      const user = await createUser(ts, `rekeyed-${path}@example.com`);
      const queueId = await register(ts, user);
      const poll = poller(ts, user, path);
      await poll({ queue_id: queueId, last_event_id: -1, dont_block: true });
      await send(ts, `${path} before`);
      const before = await poll({ queue_id: queueId, last_event_id: -1, dont_block: true });
      t.same(contents(before.body), [`${path} before`], 'the old key reads the queue');
      const rekey = await ts.request('POST', '/users/me/api_key/regenerate', { auth: user });
      t.equal(rekey.status, 200, 'a new key');
      const old = await poll({ queue_id: queueId, last_event_id: -1, dont_block: true });
      t.equal(old.status, 401, 'the old key is refused at once');
      const fresh = await ts.request('GET', '/events', { params: { queue_id: queueId, last_event_id: -1, dont_block: true }, encoding: path, auth: { email: user.email, apiKey: rekey.body.api_key } });
      t.same(contents(fresh.body), [`${path} before`], 'the new key reads the same queue');
    });

    t.test(`${path}: a deactivated user`, async (t) => {
      const user = await createUser(ts, `leaver-${path}@example.com`);
      const queueId = await register(ts, user);
      const poll = poller(ts, user, path);
      await poll({ queue_id: queueId, last_event_id: -1, dont_block: true });
      const parked = poll({ queue_id: queueId, last_event_id: -1 });
      await new Promise((r) => setTimeout(r, 300));
      const del = await ts.request('DELETE', `/users/${user.userId}`);
      t.equal(del.status, 200, 'the owner deactivates the user');
      const ended = await parked;
      t.ok(ended.status === 200 || ended.status === 400 || ended.status === 401, `the parked poll ends (${ended.status})`);
      const refused = await poll({ queue_id: queueId, last_event_id: -1, dont_block: true });
      t.equal(refused.status, 401, 'the next poll is refused');
      // An API key of a deactivated account is refused as the reference's
      // authenticated_rest_api_view does: UNAUTHORIZED, with the refusal's text.
      t.equal(refused.body.code, 'UNAUTHORIZED', 'as unauthorized');
      t.match(refused.body.msg, /deactivated/, 'saying the account is deactivated');
    });

    t.test(`${path}: another user's credentials, another realm's host`, async (t) => {
      const user = await createUser(ts, `owner-${path}@example.com`);
      const other = await createUser(ts, `other-${path}@example.com`);
      const queueId = await register(ts, user);
      await poller(ts, user, path)({ queue_id: queueId, last_event_id: -1, dont_block: true });
      const stranger = await poller(ts, other, path)({ queue_id: queueId, last_event_id: -1, dont_block: true });
      t.equal(stranger.body.code, 'BAD_EVENT_QUEUE_ID', "another user's poll finds no such queue");
      const wrongHost = await ts.request('GET', '/events', { params: { queue_id: queueId, last_event_id: -1, dont_block: true }, encoding: path, auth: user, host: 'nosuch.example.com' });
      t.equal(wrongHost.status, 200, 'with one realm every host reaches it');
    });
  }
});

t.test('polls answered at a desk are counted against the GET /events budget', async (t) => {
  const ts = await startTestServer(t, { rateLimits: { enabled: true, perUser: [[60, 8]], perIp: [[60, 1000]] } });
  for (const path of PATHS) {
    t.test(path, async (t) => {
      const user = await createUser(ts, `counted-${path}@example.com`);
      const queueId = await register(ts, user);
      const poll = poller(ts, user, path);
      const statuses: number[] = [];
      const remaining: string[] = [];
      for (let i = 0; i < 10; i++) {
        const res = await poll({ queue_id: queueId, last_event_id: -1, dont_block: true });
        statuses.push(res.status);
        remaining.push(String(res.headers['x-ratelimit-remaining']));
      }
      t.same(statuses, [200, 200, 200, 200, 200, 200, 200, 200, 429, 429], 'eight polls, then RATE_LIMIT_HIT');
      t.same(remaining.slice(0, 8), ['7', '6', '5', '4', '3', '2', '1', '0'], 'each answer says what is left');
      const refused = await poll({ queue_id: queueId, last_event_id: -1, dont_block: true });
      t.equal(refused.body.code, 'RATE_LIMIT_HIT', "the reference's code");
      t.ok(Number(refused.headers['retry-after']) > 0, 'with Retry-After');
    });
  }
});

t.test('a desk writes its answers byte for byte, ASCII or not', async (t) => {
  const ts = await startTestServer(t, { heartbeatSeconds: 3 });
  const user = await createUser(ts, 'bytes@example.com');
  const queueId = await register(ts, user);
  const authorization = `Basic ${Buffer.from(`${user.email}:${user.apiKey}`).toString('base64')}`;
  // The raw answer: its Content-Length must be its byte count, and its bytes UTF-8.
  const raw = (params: Record<string, string | number | boolean>) =>
    new Promise<{ status: number; length: number; bytes: Buffer }>((resolve, reject) => {
      const query = new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)])).toString();
      get({ host: '127.0.0.1', port: ts.port, path: `/api/v1/events?${query}`, headers: { authorization } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, length: Number(res.headers['content-length']), bytes: Buffer.concat(chunks) }));
        res.on('error', reject);
      }).on('error', reject);
    });
  const read = async (t: Test, what: string, params: Record<string, string | number | boolean>, expected: string[]) => {
    const res = await raw({ queue_id: queueId, ...params });
    t.equal(res.status, 200, `${what}: answered`);
    t.equal(res.length, res.bytes.length, `${what}: Content-Length is the byte count`);
    const text = new TextDecoder('utf-8', { fatal: true }).decode(res.bytes);
    const body = JSON.parse(text);
    t.same(contents(body), expected, `${what}: the contents, as sent`);
    return body.events.map((e: { id: number }) => e.id) as number[];
  };
  await raw({ queue_id: queueId, last_event_id: -1, dont_block: true });
  const wide = 'caf\u00e9 \u2615 \u{1F600} \u65e5\u672c \u00fcber';
  await send(ts, 'plain words');
  const [a] = await read(t, 'ASCII', { last_event_id: -1, dont_block: true }, ['plain words']);
  await send(ts, wide);
  const [, b] = await read(t, 'ASCII and not', { last_event_id: -1, dont_block: true }, ['plain words', wide]);
  await read(t, 'not ASCII alone', { last_event_id: a, dont_block: true }, [wide]);
  await send(ts, 'plain again');
  const [c] = await read(t, 'ASCII once the other is acknowledged', { last_event_id: b, dont_block: true }, ['plain again']);
  // A parked poll woken by a non-ASCII message, then by an ASCII one.
  const parked = read(t, 'woken by a non-ASCII message', { last_event_id: c }, [`${wide} 2`]);
  await new Promise((r) => setTimeout(r, 300));
  await send(ts, `${wide} 2`);
  const [d] = await parked;
  const again = read(t, 'woken by an ASCII message', { last_event_id: d }, ['plain 3']);
  await new Promise((r) => setTimeout(r, 300));
  await send(ts, 'plain 3');
  await again;
  // The shard's own answer (a form body goes through Koa) agrees.
  const viaShard = await ts.request('GET', '/events', { params: { queue_id: queueId, last_event_id: d, dont_block: true }, encoding: 'form', auth: user });
  t.same(contents(viaShard.body), ['plain 3'], "the shard's answer has the same contents");
});
