import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { checkEvent } from '../../helpers/openapi.js';
import { startTestServer } from '../../helpers/server.js';

t.test('event queues across a graceful restart', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'stoa-test-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  // A heartbeat far away: if stopping waited for parked polls, this test would time out.
  const first = await startTestServer(t, { heartbeatSeconds: 600 }, { dataDir });
  const reg = (await first.request('POST', '/register', { params: { event_types: ['message', 'restart'] } })).body;
  // As the reference's send_restart_events: a queue whose event_types leave restart out gets none.
  const messagesOnly = (await first.request('POST', '/register', { params: { event_types: ['message'] } })).body;
  const sent = await first.request('POST', '/messages', { params: { type: 'stream', to: 'general', topic: 'before', content: 'unacknowledged' } });

  t.test('stopping answers a parked poll instead of waiting for its heartbeat', async (t) => {
    const acked = await first.request('GET', '/events', { params: { queue_id: reg.queue_id, last_event_id: -1, dont_block: true } });
    t.equal(acked.body.events.length, 1, 'the message event is queued');
    // A queue no message reaches, so that its poll really parks.
    const quiet = (await first.request('POST', '/register', { params: { event_types: ['reaction'] } })).body;
    const parked = first.request('GET', '/events', { params: { queue_id: quiet.queue_id, last_event_id: -1 } });
    await new Promise((r) => setTimeout(r, 100));
    const closing = first.server.close();
    const answer = await parked;
    t.equal(answer.status, 200, 'the parked poll is answered');
    t.equal(answer.headers.connection, 'close', 'and its connection closed, so that the client does not poll again at once');
    await closing;
    t.pass('the server stopped');
  });

  t.test('after the restart the same queue resumes, with the unacknowledged event and a restart event', async (t) => {
    const second = await startTestServer(t, { heartbeatSeconds: 600 }, { dataDir });
    const res = await second.request('GET', '/events', { params: { queue_id: reg.queue_id, last_event_id: -1, dont_block: true } });
    t.equal(res.status, 200, 'the queue_id is still valid');
    const types = res.body.events.map((e: { type: string }) => e.type);
    t.same(types, ['message', 'restart'], 'the unacknowledged message, then the restart');
    t.equal(res.body.events[0].message.id, sent.body.id, 'the same message');
    t.doesNotThrow(() => checkEvent(res.body.events[1]), 'the restart event matches the reference');
    t.ok(res.body.events[1].id > res.body.events[0].id, 'event ids keep increasing');
    const other = await second.request('GET', '/events', { params: { queue_id: messagesOnly.queue_id, last_event_id: -1, dont_block: true } });
    t.same(other.body.events.map((e: { type: string }) => e.type), ['message'], 'a queue without restart in its event_types: the message only');
    await second.close();
  });
});
