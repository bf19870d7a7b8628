import t from 'tap';
import { ShardDesks, type QueueHooks } from '../../../src/api/events/desk.js';
import { EventQueue } from '../../../src/api/events/queue.js';
import { FrontDesks, type DeskPoll } from '../../../src/host/desk.js';
import type { Reply } from '../../../src/host/dispatch.js';
import type { Timer } from '../../../src/lib/timer-wheel.js';
import type { ShardNote } from '../../../src/shard/desk-wire.js';
import type { Shard } from '../../../src/shard/shard.js';
import { RealmState } from '../../../src/model/realm-state.js';

/**
 * The desks' numbers (desk-wire.ts Grant.desk): the shard's `events` notes name desks by a small
 * number given with the grant, and a number is given again once its desk has ended. Both sides
 * here, joined by an in-order pipe as the link is: a number reused after a drop, after a poll
 * that took the queue back, after a reset, must never carry events to the wrong desk.
 */
const AUTH = 'Basic dXNlcjprZXk=';

function setup() {
  const queues = new Map<string, EventQueue>();
  const hooks: QueueHooks = {
    queue: (id) => queues.get(id),
    armExpiry: () => undefined,
    cancelExpiry: () => undefined,
    heartbeat: () => ({}) as Timer,
  };
  // The link: notes are read in the order they were sent, grants with the answers among them.
  const pipe: ShardNote[] = [];
  const shard = { config: { rateLimits: { enabled: false, perUser: [] } }, wheel: { cancel: () => undefined }, toFront: (note: ShardNote) => pipe.push(note) } as unknown as Shard;
  const shardDesks = new ShardDesks(shard, hooks);
  const front = new FrontDesks(() => undefined, null);
  const read = () => {
    for (const note of pipe.splice(0)) front.note(note);
  };
  const replies = new Map<string, Reply[]>();
  let next = 1;
  const queue = (id: string, realmId = 1) => {
    const q = new EventQueue({ realmId, userId: 7, eventTypes: null, narrow: [], allPublicStreams: false, applyMarkdown: true, clientGravatar: false, capabilities: {}, lifespanSecs: 600 }, next++, id);
    queues.set(id, q);
    return q;
  };
  /** A poll that reached the shard and was answered with a desk. */
  const grant = (q: EventQueue) => {
    shardDesks.local(q);
    const g = shardDesks.grant(q);
    read();
    // The link clones what it posts.
    front.grant(AUTH, structuredClone(g));
    return g.desk;
  };
  /** A commit delivering one event to each of `to` (the manager's pushFor loop). */
  const deliver = (to: EventQueue[], label: string) => {
    const push = shardDesks.pushFor();
    for (const q of to) {
      const event = { type: 'message', label };
      const id = q.nextId({ put: () => undefined } as never, {} as never);
      q.push(event, id, 0);
      if (q.remote) push.add(q, event, id);
    }
    push.send();
  };
  /** A poll at the front end: the labels it was answered with, or null (it goes to the shard). */
  const poll = (q: EventQueue, over: Partial<DeskPoll> = {}): string[] | null => {
    const got: Reply[] = [];
    const ticket = front.poll({ realmId: q.opts.realmId, authorization: AUTH, queueId: q.id, dontBlock: true, answer: (r) => got.push(r), ...over });
    if (!ticket) return null;
    replies.set(q.id, got);
    return got.length > 0 ? (JSON.parse(got[0].body).events as { label: string }[]).map((e) => e.label) : [];
  };
  return { shardDesks, front, read, pipe, queue, grant, deliver, poll };
}

t.test('a dropped queue gives its number to the next desk, and nothing of it reaches that desk', async (t) => {
  const { shardDesks, read, queue, grant, deliver, poll } = setup();
  const a = queue('qa');
  const b = queue('qb');
  t.equal(grant(a), 0, 'the first desk is number 0');
  t.equal(grant(b), 1, 'the next, 1');
  t.equal(grant(a), 0, 'a queue granted again keeps its number');

  deliver([a, b], 'one');
  // The queue goes while its note is on the way; the next grant takes its number.
  shardDesks.dropped(a);
  const c = queue('qc');
  t.equal(grant(c), 0, "the dropped queue's number is given to the next desk");
  deliver([c, b], 'two');
  read();
  t.equal(poll(a), null, "the dropped queue's desk is gone: its poll goes to the shard");
  t.same(poll(c), ['two'], 'the new desk has its own event and none of the old queue');
  t.same(poll(b), ['one', 'two'], 'the other desk has both, in order');
});

t.test('a poll that takes a queue back frees its number; a note sent before it reaches no desk', async (t) => {
  const { shardDesks, front, read, pipe, queue, grant, deliver, poll } = setup();
  const a = queue('qa');
  const b = queue('qb');
  grant(a);
  // Sent while the desk's next poll is on its way to the shard, which forgot the desk first.
  deliver([a], 'early');
  front.forget(a.id);
  shardDesks.local(a);
  t.equal(grant(b), 0, 'the number goes to the next desk granted');
  t.equal(pipe.length, 0, 'the early note was read before that grant');
  t.same(poll(b), [], 'and did not reach the new desk');
  t.equal(grant(a), 1, 'the queue taken back gets another number');
  t.same(poll(a), ['early'], 'its grant carries the event the old desk missed');
  deliver([a, b], 'late');
  read();
  t.same(poll(b), ['late'], 'each desk gets its own');
  t.same(poll(a, { lastEventId: 0 }), ['late']);
});

t.test('after a reset no old number reaches a desk', async (t) => {
  const { shardDesks, front, read, queue, grant, deliver, poll } = setup();
  const qs = ['q0', 'q1', 'q2'].map((id) => queue(id));
  for (const q of qs) grant(q);
  deliver(qs, 'before');
  // A reload from the store: every queue local again, then the reset note (manager.resync).
  for (const q of qs) shardDesks.local(q);
  shardDesks.reset();
  t.ok(qs.every((q) => !q.remote), 'every queue is local again');
  read();
  t.equal(front.size, 0, 'every desk went');
  t.ok(qs.every((q) => poll(q) === null), 'their polls go to the shard');
  const [x, y] = [queue('qx'), queue('qy')];
  t.ok([grant(y), grant(x)].every((n) => n < 3), 'new grants take numbers given back');
  deliver([x, y], 'after');
  read();
  t.same(poll(x), ['after'], 'a new desk gets only its own events');
  t.same(poll(y), ['after']);
});

t.test('one note: several events for a desk, in order, and a parked poll answered with all', async (t) => {
  const { read, pipe, queue, grant, poll, shardDesks } = setup();
  const a = queue('qa');
  const b = queue('qb', 2);
  grant(a);
  grant(b);
  t.same(poll(a, { dontBlock: false }), [], 'parked at the desk');
  const push = shardDesks.pushFor();
  for (const [q, label] of [[a, 'a1'], [b, 'b1'], [a, 'a2']] as const) {
    const event = { type: 'message', label };
    const id = q.nextId({ put: () => undefined } as never, {} as never);
    q.push(event, id, 0);
    push.add(q, event, id);
  }
  push.send();
  t.same((pipe[0] as { list: number[] }).list.length, 9, 'three numbers per delivery, in one array');
  t.same((pipe[0] as { heads: string[] }).heads.length, 3, 'each head once');
  read();
  t.same(poll(b), ['b1']);
  t.same(poll(a), ['a1', 'a2'], 'both of the desk, in order');
});

t.test('an auth note takes desks away; the shard keeps their numbers until it takes the queues back', async (t) => {
  const { front, read, queue, grant, deliver, poll, shardDesks } = setup();
  const a = queue('qa');
  grant(a);
  // A user record of the realm changed: the shard tells the front end once the turn's microtasks run.
  RealmState.onUsersChanged?.(1);
  await Promise.resolve();
  read();
  t.equal(front.size, 0, 'the desk went');
  deliver([a], 'unseen');
  read();
  t.equal(poll(a), null, 'the desk went: the poll goes to the shard, which has the event');
  t.ok(a.remote, 'the shard still counts the queue as at a desk until that poll arrives');
  const b = queue('qb', 2);
  t.equal(grant(b), 1, 'so its number is not given to another desk');
  shardDesks.local(a);
  t.equal(grant(a), 0, 'the queue taken back gets the number free again');
  t.same(poll(a), ['unseen']);
});

t.test('a commit delivered between a grant and its answer reaches the desk once, whichever the link carries first', async (t) => {
  const { shardDesks, front, read, pipe, queue, deliver, poll } = setup();
  // Commits lmdb settles together run their deliveries between a poll's grant and its answer.
  const a = queue('qa');
  deliver([a], 'before');
  shardDesks.local(a);
  const g = shardDesks.grant(a);
  deliver([a], 'between');
  t.equal(pipe.length, 1, 'the note is on the link before the answer');
  read();
  front.grant(AUTH, structuredClone(g));
  t.same(poll(a), ['before', 'between'], 'the event whose note found no desk came with the grant');

  const b = queue('qb');
  shardDesks.local(b);
  const h = shardDesks.grant(b);
  deliver([b], 'between');
  front.grant(AUTH, structuredClone(h));
  read();
  t.same(poll(b), ['between'], 'brought by the grant and by the note, kept once');

  shardDesks.run({ kind: 'deskPoll', queueId: 'qb', lastEventId: undefined, parked: false, newest: 0 });
  t.equal(b.grantOnItsWay, null, "the desk's first task shows the front end has it: the grant is left alone");
  deliver([b], 'after');
  t.same(h.ids.length, 1, 'a later event goes by the note only');
  read();
  t.same(poll(b), ['between', 'after']);
});
