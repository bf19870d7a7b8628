import t from 'tap';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { serveLink, type Up } from '../../src/host/link.js';

/**
 * The shard's side of a link (host/link.ts): what it posts, when, and in which order. The
 * posts are watched by wrapping the port's postMessage, so the order against the thread's own
 * setImmediate callbacks is exact, not timed.
 */
function setup(handle: (task: any) => Promise<unknown>) {
  const { port1, port2 } = new MessageChannel();
  const log: unknown[] = [];
  const post = port2.postMessage.bind(port2);
  (port2 as MessagePort & { postMessage: (value: unknown) => void }).postMessage = (value: unknown) => {
    log.push(['post', value]);
    post(value);
  };
  const toFront = serveLink(port2, handle as never);
  const received: Up[][] = [];
  port1.on('message', (batch: Up[]) => received.push(batch));
  const close = () => {
    port1.close();
    port2.close();
  };
  return { port1, log, toFront, received, close };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));
const until = async (ok: () => boolean) => {
  for (let i = 0; i < 1000 && !ok(); i++) await turn();
};

t.test("a note goes when the task's microtasks have run, before the turn's immediates", async (t) => {
  let toFront: (note: unknown) => void = () => undefined;
  const s = setup(async (task) => {
    if (task === 'commit') {
      setImmediate(() => s.log.push('immediate'));
      toFront({ kind: 'events', n: 1 });
      toFront({ kind: 'events', n: 2 });
    }
    return null;
  });
  toFront = s.toFront;
  s.port1.postMessage([[0, 'commit']]);
  await until(() => s.log.length >= 2);
  t.same(s.log, [['post', [[0, true, { kind: 'events', n: 1 }], [0, true, { kind: 'events', n: 2 }]]], 'immediate'], 'both notes in one post, ahead of the rest of the turn');
  s.close();
});

t.test("answers go when the task's microtasks have run, in one post with the notes, in order", async (t) => {
  let toFront: (note: unknown) => void = () => undefined;
  const s = setup(async (task) => {
    if (task === 'note') toFront({ kind: 'drain' });
    else setImmediate(() => s.log.push('immediate'));
    return task;
  });
  toFront = s.toFront;
  s.port1.postMessage([[1, 'plain']]);
  await until(() => s.log.length >= 2);
  t.same(s.log, [['post', [[1, true, 'plain']]], 'immediate'], 'an answer goes ahead of the immediates queued with it');
  s.log.length = 0;
  // The note is queued as its task runs; the answers once their promises' reactions have run.
  s.port1.postMessage([[2, 'a'], [0, 'note'], [3, 'b']]);
  await until(() => s.received.length >= 2 && s.log.length >= 3);
  t.same(s.log, [['post', [[0, true, { kind: 'drain' }], [2, true, 'a'], [3, true, 'b']]], 'immediate', 'immediate'], "the tasks of one port message share one post, ahead of the turn's immediates");
  s.close();
});

t.test('a send is answered only once its commit has settled, with its deliveries ahead of it in the same post', async (t) => {
  let toFront: (note: unknown) => void = () => undefined;
  const commits: (() => void)[] = [];
  // As a send does (shard/events.ts, store/write-batch.ts): the handler awaits its commit; the
  // commit's settling delivers its events (a note) and then the handler answers, a few
  // microtasks later.
  const s = setup(async (task: { n: number }) => {
    await new Promise<void>((resolve) =>
      commits.push(() => {
        s.log.push(`committed ${task.n}`);
        resolve();
      }),
    ).then(() => toFront({ kind: 'events', n: task.n }));
    await Promise.resolve();
    return `sent ${task.n}`;
  });
  toFront = s.toFront;
  s.port1.postMessage([[1, { n: 1 }], [2, { n: 2 }]]);
  await until(() => commits.length === 2);
  for (let i = 0; i < 5; i++) await turn();
  t.same(s.log, [], 'nothing is posted while the commits are in flight');
  // lmdb-js settles the two commits in one completion (one macrotask); an immediate queued there
  // runs after the post.
  setImmediate(() => {
    for (const settle of commits) settle();
    setImmediate(() => s.log.push('immediate'));
  });
  await until(() => s.log.length >= 4);
  t.same(
    s.log,
    ['committed 1', 'committed 2', ['post', [[0, true, { kind: 'events', n: 1 }], [0, true, { kind: 'events', n: 2 }], [1, true, 'sent 1'], [2, true, 'sent 2']]], 'immediate'],
    'after the commits, one post: the deliveries, then the answers, before the rest of the turn',
  );
  s.close();
});

t.test('a batch that cannot be cloned is posted item by item', async (t) => {
  const s = setup(async (task) => (task === 'bad' ? { fn: () => undefined } : task));
  s.port1.postMessage([[1, 'ok'], [2, 'bad']]);
  await until(() => s.received.flat().length >= 2);
  const items = s.received.flat();
  t.same(items[0], [1, true, 'ok'], 'the good answer arrives');
  t.equal(items[1][0], 2, 'the bad one is answered');
  t.equal(items[1][1], false, 'as a failure');
  s.close();
});

t.test("the front end's side: answers reach their callers out of order, numbers are given again, a thread's end fails what waits", async (t) => {
  const { ShardLink } = await import('../../src/host/link.js');
  const held = new Map<number, (value: unknown) => void>();
  let shardPort: MessagePort | null = null;
  const link = new ShardLink(async (port) => {
    shardPort = port;
    serveLink(port, (async (task: { v: number; hold?: boolean }) => {
      if (!task.hold) return task.v * 2;
      return new Promise((resolve) => held.set(task.v, resolve));
    }) as never);
  });
  const slow = [1, 2, 3].map((v) => link.call<number>({ v, hold: true }));
  const one = [];
  for (let i = 0; i < 200; i++) one.push(await link.call<number>({ v: i }));
  t.same(one, Array.from({ length: 200 }, (_, i) => i * 2), '200 calls one after another, each answered with its own value');
  await until(() => held.size === 3);
  held.get(3)!('three');
  held.get(1)!('one');
  t.same(await Promise.all([slow[0], slow[2]]), ['one', 'three'], 'held calls answered out of order reach their callers');
  const places = (link as unknown as { waiting: unknown[] }).waiting.length;
  t.ok(places <= 5, `the waiting places stay as many as the calls once in flight (${places}), not one per call`);
  const burst = await Promise.all(Array.from({ length: 50 }, (_, i) => link.call<number>({ v: 1000 + i })));
  t.same(burst, Array.from({ length: 50 }, (_, i) => (1000 + i) * 2), 'a burst of calls sharing one post, each answered with its own value');
  // The thread ends with call 2 still held: it fails, and the link opens a new channel after.
  shardPort!.close();
  await t.rejects(slow[1], /the shard thread ended/, 'a call in flight fails when the thread ends');
  t.equal(await link.call<number>({ v: 7 }), 14, 'a call after the end goes over a new channel');
  link.close();
});

t.test("the front end's side: list tasks queued one after another cross as one, in order with the rest", async (t) => {
  const { link, posts, ran } = await recordingLink();
  // Connected first, so that what follows is one turn's outbox.
  t.equal(await link.call('hello'), 'ok', 'the channel is up');
  posts.length = 0;
  ran.length = 0;
  link.notify({ kind: 'desks', list: ['q1', 0] });
  link.notify({ kind: 'desks', list: ['q2', 1] });
  const answered = link.call('send');
  link.notify({ kind: 'desks', list: ['q3', 2] });
  link.notify({ kind: 'other', list: ['x'] });
  link.notify({ kind: 'other', list: ['y'] });
  link.notify('plain');
  link.notify('plain');
  t.equal(await answered, 'ok');
  await until(() => ran.length >= 6);
  t.equal(posts.length, 1, 'one post');
  t.same(ran, [{ kind: 'desks', list: ['q1', 0, 'q2', 1] }, 'send', { kind: 'desks', list: ['q3', 2] }, { kind: 'other', list: ['x', 'y'] }, 'plain', 'plain'], 'each run of a kind joined, nothing moved past a task between');
  link.close();
});

t.test("the front end's side: tasks sent later wait for the next task that must go, or for the timer, in order", async (t) => {
  const { link, posts, ran } = await recordingLink();
  t.equal(await link.call('hello'), 'ok', 'the channel is up');
  posts.length = 0;
  ran.length = 0;
  link.notify({ kind: 'desks', list: ['q1', 0] }, true);
  await turn();
  await turn();
  t.equal(posts.length, 0, 'alone, they are not posted at the end of the turn');
  link.notify({ kind: 'desks', list: ['q2', 1] }, true);
  t.equal(await link.call('send'), 'ok', 'a call goes at once');
  t.equal(posts.length, 1, 'in one post');
  t.same(ran, [{ kind: 'desks', list: ['q1', 0, 'q2', 1] }, 'send'], 'with the tasks sent later ahead of it, joined');
  posts.length = 0;
  ran.length = 0;
  const sent = performance.now();
  link.notify({ kind: 'desks', list: ['q3', 2] }, true);
  await until(() => ran.length >= 1);
  for (let i = 0; i < 200 && ran.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 2));
  t.same(ran, [{ kind: 'desks', list: ['q3', 2] }], 'alone, they go when the timer fires');
  t.ok(performance.now() - sent < 1000, 'within the timer');
  t.equal(posts.length, 1, 'in one post');
  link.close();
});

/** A link whose shard side records each post and each task it runs, answering 'ok'. */
async function recordingLink() {
  const { ShardLink } = await import('../../src/host/link.js');
  const posts: unknown[][] = [];
  const ran: unknown[] = [];
  const link = new ShardLink(async (port) => {
    port.on('message', (items: unknown[]) => posts.push(items));
    serveLink(port, (async (task: unknown) => {
      ran.push(task);
      return 'ok';
    }) as never);
  });
  return { link, posts, ran };
}
