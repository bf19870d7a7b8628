import { existsSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { field, http } from '../cli/run.js';
import { canMount, smallDisk } from './full-disk.js';

/**
 * SIGTERM while the disk is full: commits fail (the queues' acknowledgements, the stop's own
 * writes), and the stop must still end at once, exit 0 and remove the pid file. (It hung for
 * the whole 35 s safety timer and exited 1, leaving stoa.pid.) What was acknowledged before is
 * there after a restart with space.
 */
t.test('SIGTERM with a full disk stops cleanly', { skip: canMount ? false : 'needs unshare --mount (a private tmpfs)' }, async (t) => {
  t.setTimeout(180_000);
  const disk = await smallDisk(t);
  let server = await disk.start({ STOA_LOG_LEVEL: 'info' });
  t.teardown(() => server.child.kill('SIGKILL'));
  const owner = { email: field(server.out(), 'owner email')!, apiKey: field(server.out(), 'owner API key')! };
  const call = (method: string, path: string, form?: Record<string, string>) => http(server.port, { method, path, host: `localhost:${server.port}`, auth: owner, form });
  const send = (i: number) => call('POST', '/messages', { type: 'stream', to: 'general', topic: 'full', content: `message ${i}: ${'lorem ipsum '.repeat(300)}` });

  // Queues with parked polls and events to acknowledge: the stop saves acknowledgements.
  const queues = await Promise.all(Array.from({ length: 3 }, async () => (await call('POST', '/register', { event_types: '["message"]' })).body.queue_id as string));
  const acked: number[] = [];
  disk.fill(200 * 1024);
  let failures = 0;
  for (let i = 0; i < 400 && failures < 3; i++) {
    const res = await send(i);
    if (res.status === 200) acked.push(res.body.id);
    else failures++;
  }
  t.equal(failures, 3, `sends fail once the disk is full (after ${acked.length})`);
  // Each queue acknowledges what it got and parks: the stop answers the polls and must save
  // those acknowledgements, a commit the full disk refuses.
  const polls = await Promise.all(
    queues.map(async (queue) => {
      const got = await call('GET', `/events?queue_id=${queue}&last_event_id=-1&dont_block=true`);
      const last = (got.body.events as { id: number }[]).at(-1)?.id ?? -1;
      return { parked: call('GET', `/events?queue_id=${queue}&last_event_id=${last}`).catch(() => null) };
    }),
  );
  await new Promise((r) => setTimeout(r, 200));
  // Not a byte left.
  disk.fill(0);
  server.child.kill('SIGTERM');
  const { code, signal } = await server.exited;
  t.equal(signal, null, 'it exits by itself');
  t.equal(code, 0, 'with status 0');
  t.notMatch(server.out(), /did not finish in time|shutdown failed/, 'the stop finished, and did not fail');
  t.notOk(existsSync(join(disk.inside, 'stoa.pid')), 'the pid file is removed');
  const answered = await Promise.all(polls.map((p) => p.parked));
  t.same(answered.map((r) => r?.status), queues.map(() => 200), 'the parked polls were answered');

  disk.free();
  server = await disk.start();
  const page = await call('GET', `/messages?${new URLSearchParams({ anchor: 'newest', num_before: '1000', num_after: '0', narrow: JSON.stringify([['topic', 'full']]) })}`);
  t.same(page.body.messages.map((m: { id: number }) => m.id), acked, 'after a restart: what was acknowledged, and only that');
  server.child.kill('SIGTERM');
  t.equal((await server.exited).code, 0, 'stops cleanly');
});
