import t from 'tap';
import { field, http, tempDir } from '../../cli/run.js';
import { checkEvent } from '../../helpers/openapi.js';
import { spawnServer, type ServerProcess } from '../../startup/spawn.js';

/**
 * kill -9 gives the server no chance to save anything: queues and their unacknowledged events
 * must already be in LMDB, written with the changes that produced them.
 */
t.test('event queues survive kill -9', async (t) => {
  const dataDir = tempDir(t, 'stoa-crash-');
  const env = { STOA_PORT: '0', STOA_DATA_DIR: dataDir, STOA_HEARTBEAT_SECONDS: '1' };
  const first = await spawnServer(t, env);
  const owner = { email: field(first.stdout(), 'owner email')!, apiKey: field(first.stdout(), 'owner API key')! };
  const call = (server: ServerProcess, method: string, path: string, form: Record<string, string> = {}) => {
    const query = method === 'GET' || method === 'DELETE' ? `?${new URLSearchParams(form)}` : '';
    return http(server.port, { method, path: path + query, host: `localhost:${server.port}`, auth: owner, form: query ? undefined : form });
  };
  const poll = (server: ServerProcess, queueId: string, lastEventId: number) =>
    call(server, 'GET', '/events', { queue_id: queueId, last_event_id: String(lastEventId), dont_block: 'true' });
  const send = async (server: ServerProcess, content: string) => {
    const res = await call(server, 'POST', '/messages', { type: 'stream', to: 'general', topic: 'crash', content });
    if (res.status !== 200) throw new Error(JSON.stringify(res.body));
    return res.body.id as number;
  };

  const queue = (await call(first, 'POST', '/register', { event_types: JSON.stringify(['message', 'reaction', 'restart']) })).body.queue_id as string;
  const deleted = (await call(first, 'POST', '/register', {})).body.queue_id as string;
  t.equal((await call(first, 'DELETE', '/events', { queue_id: deleted })).status, 200, 'a queue deleted before the crash');

  // A parked poll that ends with a heartbeat: its id is handed out but never written to the log.
  const heartbeat = (await call(first, 'GET', '/events', { queue_id: queue, last_event_id: '-1' })).body.events;
  t.same(heartbeat.map((e: { type: string }) => e.type), ['heartbeat'], 'a heartbeat first');
  const heartbeatId = heartbeat[0].id as number;

  const ids = [await send(first, 'one'), await send(first, 'two'), await send(first, 'three')];
  const react = await call(first, 'POST', `/messages/${ids[2]}/reactions`, { emoji_name: 'octopus' });
  t.equal(react.status, 200, 'a reaction');
  const before = (await poll(first, queue, heartbeatId)).body.events as { id: number; type: string }[];
  t.equal(before.length, 4, 'three messages and a reaction are queued');
  // The client has handled the first message and says so.
  const acked = before[0].id;
  t.equal((await poll(first, queue, acked)).body.events.length, 3, 'one acknowledged');

  t.equal((await first.stop('SIGKILL')).signal, 'SIGKILL', 'killed, with no chance to save');

  const second = await spawnServer(t, env);
  const after = await poll(second, queue, acked);
  t.equal(after.status, 200, 'the same queue_id is valid after the crash');
  const events = after.body.events as { id: number; type: string; message?: { id: number; content: string } }[];
  t.same(events.map((e) => e.type), ['message', 'message', 'reaction', 'restart'], 'the unacknowledged events, then restart');
  t.same(events.slice(0, 3).map((e) => e.id), before.slice(1).map((e) => e.id), 'with the ids the client saw before');
  t.same(events.slice(0, 2).map((e) => e.message!.id), ids.slice(1), 'the same messages');
  for (const event of events) t.doesNotThrow(() => checkEvent(event), `${event.type} matches the reference`);
  t.ok(events[3].id > before[3].id && events[3].id > heartbeatId, 'no id is given twice, not even the heartbeat\'s');

  const restartId = events[3].id;
  const later = await send(second, 'after the crash');
  const next = (await poll(second, queue, restartId)).body.events as { id: number; message: { id: number } }[];
  t.equal(next.length, 1, 'acknowledging the restart leaves only what came after it');
  t.equal(next[0].message.id, later, 'the new message');
  t.ok(next[0].id > restartId, 'ids keep increasing');

  const gone = await poll(second, deleted, -1);
  t.equal(gone.status, 400, 'a deleted queue stays deleted');
  t.equal(gone.body.code, 'BAD_EVENT_QUEUE_ID', 'BAD_EVENT_QUEUE_ID');

  // A second crash right away: the restored queue and the restart event are durable too.
  t.equal((await second.stop('SIGKILL')).signal, 'SIGKILL', 'killed again');
  const third = await spawnServer(t, env);
  const again = (await poll(third, queue, restartId)).body.events as { id: number; type: string }[];
  t.same(again.map((e) => e.type), ['message', 'restart'], 'the unacknowledged message, and a new restart');
  t.equal(again[0].id, next[0].id, 'with its id');
  t.ok(again[1].id > next[0].id, 'the new restart comes after it');
  t.equal((await third.stop('SIGTERM')).code, 0, 'a clean stop');
});
