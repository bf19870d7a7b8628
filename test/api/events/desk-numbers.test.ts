import t from 'tap';
import { ShardDesks, type QueueHooks } from '../../../src/api/events/desk.js';
import { EventQueue } from '../../../src/api/events/queue.js';
import { FrontDesks, type DeskPoll } from '../../../src/host/desk.js';
import type { Reply } from '../../../src/host/dispatch.js';
import type { Timer } from '../../../src/lib/timer-wheel.js';
import { DESK_ANSWERED, DESK_IDLE, deskTask, type DeskTask, type ShardNote } from '../../../src/shard/desk-wire.js';
import type { Shard } from '../../../src/shard/shard.js';
import { RealmState } from '../../../src/model/realm-state.js';
import { ApiError } from '../../../src/lib/errors.js';

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
  const sent: DeskTask[] = [];
  const front = new FrontDesks((task) => sent.push(task), null);
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
  /**
   * A plain poll that finds its queue empty: the shard grants a desk and parks the poll there
   * (the grant to hand to the front end, as the link would, when the test says).
   */
  const park = (q: EventQueue) => {
    shardDesks.local(q);
    const g = shardDesks.grant(q, true);
    const got: Reply[] = [];
    const arrive = () => front.grant(AUTH, structuredClone(g), { poll: { realmId: q.opts.realmId, authorization: AUTH, queueId: q.id, dontBlock: false, answer: (r) => got.push(r) }, headers: undefined });
    const answered = () => got.map((r) => ({ status: r.status, labels: (JSON.parse(r.body).events as { label: string }[] | undefined)?.map((e) => e.label) }));
    return { g, arrive, answered };
  };
  return { shardDesks, front, read, pipe, queue, grant, deliver, poll, park, sent };
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

  shardDesks.run(deskTask('qb', DESK_ANSWERED, undefined, 0));
  t.equal(b.grantOnItsWay, null, "the desk's first task shows the front end has it: the grant is left alone");
  deliver([b], 'after');
  t.same(h.ids.length, 1, 'a later event goes by the note only');
  read();
  t.same(poll(b), ['between', 'after']);
});

t.test('a poll parked with its grant: events on the way answer it, once; later ones come by note', async (t) => {
  const { shardDesks, read, queue, deliver, poll, park, pipe } = setup();
  const a = queue('qa');
  const p = park(a);
  t.ok(a.remoteParked, 'the shard keeps the heartbeat, not a request');
  t.equal(a.parked, null);
  deliver([a], 'between');
  t.equal(a.remoteParked, null, 'the event ends the poll for the shard');
  t.equal(pipe.length, 1, 'its note is on the link before the answer');
  read();
  const ticket = p.arrive();
  t.ok(ticket, "the poll is the desk's");
  t.same(p.answered(), [{ status: 200, labels: ['between'] }], 'answered at once with what the grant brought');
  deliver([a], 'after');
  read();
  t.same(poll(a, { lastEventId: 0 }), ['after'], 'the next event once, by the note');
  t.equal(shardDesks.grant(a).desk, 0);
});

t.test('a poll parked with its grant waits at the desk; the note answers it, and leaving tells the shard', async (t) => {
  const { shardDesks, read, queue, deliver, park, sent } = setup();
  const a = queue('qa');
  const p = park(a);
  read();
  const ticket = p.arrive()!;
  t.same(p.answered(), [], 'parked at the desk');
  t.same(sent, [], 'the shard needs no word: it parked it');
  deliver([a], 'one');
  read();
  t.same(p.answered(), [{ status: 200, labels: ['one'] }], 'the note answers it');
  ticket.leave();
  t.same(sent, [], 'an answered poll leaves nothing to say');

  const b = queue('qb');
  const q = park(b);
  read();
  q.arrive()!.leave();
  t.same(sent, [deskTask('qb', DESK_IDLE)], 'a client that leaves lets the queue age');
  shardDesks.run(sent[0]);
  t.equal(b.remoteParked, null, 'the shard no longer counts it as polled');
  t.equal(b.grantOnItsWay, null, 'and knows the front end has the desk');
});

t.test("a drop that passes a parked grant on the link: no desk, and the poll gets the drop's answer", async (t) => {
  const { shardDesks, front, read, queue, park } = setup();
  const a = queue('qa');
  const p = park(a);
  shardDesks.dropped(a, new ApiError('Bad event queue ID: qa', { code: 'BAD_EVENT_QUEUE_ID', data: { queue_id: 'qa' } }));
  read();
  p.arrive();
  t.equal(front.size, 0, 'no desk for a queue gone');
  t.same(p.answered(), [{ status: 400, labels: undefined }], "the poll gets the drop's answer");
  t.equal(a.remoteParked, null, 'and nothing is left parked in the shard');

  const b = queue('qb');
  const g = shardDesks.grant(b);
  shardDesks.dropped(b);
  read();
  front.grant(AUTH, structuredClone(g));
  t.equal(front.size, 0, 'an ordinary grant passed by its drop makes no desk either');
});

t.test('an auth note that passes a parked grant: no desk, the poll ends empty, the queue ages', async (t) => {
  const { shardDesks, front, read, queue, park, sent, grant } = setup();
  const other = queue('qo');
  grant(other);
  const a = queue('qa');
  const p = park(a);
  RealmState.onUsersChanged?.(1);
  await Promise.resolve();
  read();
  p.arrive();
  t.equal(front.size, 0, 'no desk with credentials that may have changed');
  t.same(p.answered(), [{ status: 200, labels: [] }], 'the poll ends empty, as at a desk the note took away');
  t.same(sent, [deskTask('qa', DESK_IDLE)], 'and the shard is told');
  shardDesks.run(sent[0]);
  t.equal(a.remoteParked, null, 'so the queue ages until the next poll');
  const b = queue('qb');
  const q = park(b);
  read();
  q.arrive();
  t.equal(front.size, 1, 'a grant made after the note makes its desk');
});

t.test('a poll that takes the queue back, or a reset, passes a grant: no desk the shard does not feed', async (t) => {
  const { shardDesks, front, read, queue, park, deliver } = setup();
  const a = queue('qa');
  const p = park(a);
  // A second poll of the same queue reached the shard before the first one's answer came back.
  shardDesks.local(a);
  read();
  p.arrive();
  t.equal(front.size, 0, "no desk: the queue is the shard's again");
  t.same(p.answered(), [{ status: 200, labels: [] }], 'the older poll ends empty, as a newer poll ends it');
  deliver([a], 'kept');
  t.same(a.events().map((e) => e.label), ['kept'], 'its events stay with the shard');

  const b = queue('qb');
  const q = park(b);
  shardDesks.local(b);
  shardDesks.reset();
  read();
  q.arrive();
  t.equal(front.size, 0, 'a reset passed it: no desk');
  t.same(q.answered(), [{ status: 200, labels: [] }]);
});
