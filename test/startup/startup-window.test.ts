import { connect } from 'node:net';
import t from 'tap';
import { field, http, tempDir } from '../cli/run.js';
import { freePort, spawnServer } from './spawn.js';

/**
 * Clients that arrive while the server starts: the listener opens before the shards have loaded,
 * and requests wait for them. A client that hangs up in that window (a health check with a short
 * timeout, a phone reconnecting after a restart) once ended the server (a ReferenceError in the
 * response's close handler). Here, from the moment the process is spawned until well after it
 * listens, clients connect and cancel 10 ms after sending, and long-poll on a queue registered
 * before the restart (some cancelled, some waited for): the server must come up, answer the
 * polls it kept, and stop cleanly.
 */
t.test('clients that connect, cancel and long-poll across the start-up window', async (t) => {
  t.setTimeout(180_000);
  const dataDir = tempDir(t, 'stoa-window-');
  const port = await freePort();
  const env = { STOA_PORT: String(port), STOA_DATA_DIR: dataDir, STOA_SHARDS: '2' };
  const first = await spawnServer(t, env);
  const owner = { email: field(first.stdout(), 'owner email')!, apiKey: field(first.stdout(), 'owner API key')! };
  const auth = `Basic ${Buffer.from(`${owner.email}:${owner.apiKey}`).toString('base64')}`;
  const queue = (await http(port, { method: 'POST', path: '/register', host: `localhost:${port}`, auth: owner, form: { event_types: '["message","restart"]' } })).body.queue_id as string;
  t.ok(queue, 'a queue registered before the restart');
  t.equal((await first.stop('SIGTERM')).code, 0, 'the first server stops');

  let listening = false;
  let exited = false;
  let sent = 0;
  const kept: Promise<number>[] = [];
  /**
   * One request on a fresh connection: whether it was sent (the connection was accepted), and
   * the answer's status, or null when the connection was refused or cancelled.
   */
  const exchange = (path: string, cancelAfterMs: number | null) => {
    let sentIt: (sent: boolean) => void = () => undefined;
    const wasSent = new Promise<boolean>((resolve) => (sentIt = resolve));
    const status = new Promise<number | null>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      let data = '';
      const done = (value: number | null) => {
        sentIt(false);
        resolve(value);
      };
      socket.on('error', () => done(null));
      socket.on('data', (c) => {
        data += c;
        const m = /^HTTP\/1\.1 (\d+)/.exec(data);
        if (m && data.includes('\r\n\r\n')) {
          socket.destroy();
          done(Number(m[1]));
        }
      });
      socket.on('close', () => done(null));
      socket.on('connect', () => {
        sent++;
        socket.write(`GET /api/v1${path} HTTP/1.1\r\nHost: localhost:${port}\r\nAuthorization: ${auth}\r\n\r\n`);
        sentIt(true);
        if (cancelAfterMs !== null) setTimeout(() => socket.destroy(), cancelAfterMs);
      });
    });
    return { wasSent, status };
  };
  const poll = `/events?queue_id=${queue}&last_event_id=-1`;
  const hammer = async (k: number) => {
    // Until the server has been up a little while: the window includes its first answers.
    let after = 0;
    for (let i = 0; after < 20 && !exited; i++) {
      if (listening) after++;
      if (k === 0 && i % 5 === 0) {
        // A long-poll waited for: answered once the shards are up (the queue has its restart event).
        const { wasSent, status } = exchange(poll, null);
        if (await wasSent) kept.push(status.then((s) => s ?? 0));
        continue;
      }
      await exchange(k % 2 === 0 ? poll : '/server_settings', 10).status;
      await new Promise((r) => setTimeout(r, 2));
    }
  };
  const clients = Array.from({ length: 4 }, (_, k) => hammer(k));
  const second = await spawnServer(t, env).then(
    (server) => ((listening = true), server),
    async (err) => {
      exited = true;
      await Promise.all(clients);
      throw err;
    },
  );
  await Promise.all(clients);
  t.ok(sent > 20, `requests were sent through the start-up window (${sent})`);
  t.equal(second.child.exitCode, null, 'the server is still running');
  t.notMatch(second.stderr(), /ReferenceError|uncaught/i, 'nothing was thrown');
  const statuses = await Promise.all(kept);
  t.ok(statuses.length > 0, `long-polls were kept open across the start (${statuses.length})`);
  t.same(statuses.filter((s) => s !== 200), [], `each was answered 200 (${statuses.join(', ')})`);
  const settings = await http(port, { path: '/server_settings', host: `localhost:${port}` });
  t.equal(settings.status, 200, 'it serves');
  const { code } = await second.stop('SIGTERM');
  t.equal(code, 0, 'and stops cleanly');
});
