import { writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import t from 'tap';
import { field, http, tempDir } from '../cli/run.js';
import { spawnServer } from './spawn.js';

/**
 * SIGTERM under load: the server stops accepting, answers its parked polls, lets the requests
 * on the wire finish, and exits 0 within the grace period, however slow a client is.
 *
 * Every request the server read is answered (its own account, logged at the stop), and so no
 * send is stored without its client having been told: after a restart the stored messages are
 * exactly the acknowledged ones. A connection the kernel completes in the instant the listener
 * closes is reset before the server reads it; its client sees ECONNRESET (or ECONNREFUSED a
 * moment later), and its request was never processed.
 */
t.test('SIGTERM finishes what is in flight and exits 0', async (t) => {
  t.setTimeout(120_000);
  const dataDir = tempDir(t, 'stoa-stop-');
  const config = join(dataDir, 'config.json');
  writeFileSync(config, JSON.stringify({ stopGraceSeconds: 2 }));
  const env = { STOA_PORT: '0', STOA_DATA_DIR: dataDir, STOA_CONFIG: config, STOA_HEARTBEAT_SECONDS: '60', STOA_LOG_LEVEL: 'info' };
  let server = await spawnServer(t, env);
  const owner = { email: field(server.stdout(), 'owner email')!, apiKey: field(server.stdout(), 'owner API key')! };
  const call = (method: string, path: string, form?: Record<string, string>) => http(server.port, { method, path, host: `localhost:${server.port}`, auth: owner, form });

  let answered = 0;
  const unexpected: string[] = [];
  const record = async (request: () => Promise<unknown>): Promise<boolean> => {
    try {
      await request();
      answered++;
      return true;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
      if (code !== 'ECONNREFUSED' && code !== 'ECONNRESET') unexpected.push(code);
      return false;
    }
  };

  // Pollers parked on their queues, re-polling as soon as they are answered.
  const queues = await Promise.all(Array.from({ length: 10 }, async () => (await call('POST', '/register', { event_types: '["message"]' })).body.queue_id as string));
  let parkedAnswered = 0;
  const pollers = queues.map(async (queueId) => {
    let last = -1;
    for (;;) {
      let events: { id: number }[] = [];
      const ok = await record(async () => {
        const res = await call('GET', `/events?${new URLSearchParams({ queue_id: queueId, last_event_id: String(last) })}`);
        events = res.body.events ?? [];
      });
      if (!ok) return;
      parkedAnswered++;
      last = events.at(-1)?.id ?? last;
    }
  });
  let sends = 0;
  const acked = new Set<number>();
  const senders = Array.from({ length: 4 }, async (_, k) => {
    for (let i = 0; ; i++) {
      const ok = await record(async () => {
        const res = await call('POST', '/messages', { type: 'stream', to: 'general', topic: 'stop', content: `sender ${k} message ${i}` });
        if (res.status === 200) acked.add(res.body.id);
      });
      if (!ok) return;
      sends++;
    }
  });
  // A client that sends half its headers and then nothing: it must not hold the stop.
  const slow = connect(server.port, '127.0.0.1');
  slow.on('error', () => undefined);
  slow.write('GET /api/v1/users/me HTTP/1.1\r\nHost: localhost\r\n');

  while (sends < 40) await new Promise((r) => setTimeout(r, 20));
  const t0 = Date.now();
  const { code } = await server.stop('SIGTERM');
  const took = Date.now() - t0;
  await Promise.all([...pollers, ...senders]);
  slow.destroy();

  t.equal(code, 0, 'exit status 0');
  t.ok(took < 2000 + 8000, `the stop took ${took} ms: the grace period (2 s) bounds the slow client`);
  t.same(unexpected, [], 'clients saw answers, or a connection refused or reset before it was read');
  const stopLine = server.stdout().split('\n').find((l) => l.includes('"msg":"stop:'));
  t.ok(stopLine, 'the stop is logged');
  const stats = JSON.parse(stopLine ?? '{}');
  t.equal(stats.cut, 0, `every request the server read was answered (${stats.answered} during the stop)`);
  t.equal(stats.closedAtGrace, 0, 'the half-sent request did not hold the stop to its grace period');
  t.ok(parkedAnswered >= queues.length, 'the parked polls were answered');
  t.ok(answered > 40, `requests were answered up to the stop (${answered})`);

  server = await spawnServer(t, env);
  const page = await call('GET', `/messages?${new URLSearchParams({ anchor: 'newest', num_before: '5000', num_after: '0', narrow: JSON.stringify([['topic', 'stop']]) })}`);
  t.same(page.body.messages.map((m: { id: number }) => m.id), [...acked].sort((a, b) => a - b), 'the stored sends are exactly the acknowledged ones');
  t.equal((await server.stop('SIGTERM')).code, 0, 'and the second stop is clean too');
});
