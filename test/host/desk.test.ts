import t from 'tap';
import { RateLimiter } from '../../src/lib/rate-limit.js';
import { FrontDesks, type DeskPoll } from '../../src/host/desk.js';
import { DESK_ANSWERED, DESK_IDLE, DESK_PARKED, type DeskTask, type Grant } from '../../src/shard/desk-wire.js';
import type { Reply } from '../../src/host/dispatch.js';

/** A `desks` task's polls, one by one, as the shard reads them (api/events/desk.ts run). */
function deskEntries(task: DeskTask): { queueId: string; state: number; lastEventId?: number; newest: number }[] {
  const out: { queueId: string; state: number; lastEventId?: number; newest: number }[] = [];
  for (let i = 0; i < task.list.length; i += 4) {
    const last = task.list[i + 2] as number | null;
    out.push({ queueId: task.list[i] as string, state: task.list[i + 1] as number, ...(last === null ? {} : { lastEventId: last }), newest: task.list[i + 3] as number });
  }
  return out;
}

/**
 * The front end's desks on their own (host/desk.ts): what they answer without the shard, what
 * they leave to it, and what they tell it. The HTTP behaviour, on both paths, is in
 * test/front/desk.test.ts.
 */
const AUTH = 'Basic dXNlcjprZXk=';
const head = (n: number) => `{"type":"message","n":${n},`;

function setup(limiter: RateLimiter | null = null) {
  const sent: DeskTask[] = [];
  const desks = new FrontDesks((task) => sent.push(task), limiter);
  // The shard's auth and reset notes so far, which its grants carry (desk-wire.ts Grant.revoked).
  const shard = { revoked: 0 };
  const grant = (over: Partial<Grant> = {}) => desks.grant(AUTH, { queueId: 'q1', desk: 0, realmId: 1, userId: 7, ids: [], heads: [], newestPruned: -1, revoked: shard.revoked, ...over });
  const replies: Reply[] = [];
  const poll = (over: Partial<DeskPoll> = {}) => desks.poll({ realmId: 1, authorization: AUTH, queueId: 'q1', dontBlock: false, answer: (r) => replies.push(r), ...over });
  return { desks, sent, grant, poll, replies, shard };
}

t.test('a desk answers from its events and tells the shard', async (t) => {
  const { grant, poll, replies, sent } = setup();
  grant({ ids: [3, 4], heads: [head(3), head(4)], newestPruned: 2 });
  t.ok(poll({ lastEventId: 3 }), 'answered at the desk');
  t.same(JSON.parse(replies[0].body), { result: 'success', msg: '', events: [{ type: 'message', n: 4, id: 4 }], queue_id: 'q1' }, 'with what is left after the acknowledgement');
  t.same(sent.flatMap(deskEntries), [{ queueId: 'q1', state: DESK_ANSWERED, lastEventId: 3, newest: 4 }], 'the shard hears of the acknowledgement');
  t.equal(poll({ lastEventId: 2 }), null, 'an id below what was pruned goes to the shard (an error)');
  t.equal(poll({ lastEventId: 9 }), null, 'an id the desk never saw goes to the shard');
  t.equal(poll({ authorization: 'Basic other' }), null, 'other credentials go to the shard');
  t.equal(poll({ realmId: 2 }), null, "another realm's host goes to the shard");
  t.equal(poll({ queueId: 'q2' }), null, 'a queue without a desk goes to the shard');
});

t.test('a parked poll is answered by the next events, a heartbeat or a new poll', async (t) => {
  const { desks, grant, poll, replies, sent } = setup();
  grant();
  const ticket = poll({ lastEventId: -1 });
  t.ok(ticket, 'parked at the desk');
  t.equal(replies.length, 0, 'no answer yet');
  t.same(sent.flatMap(deskEntries).at(-1), { queueId: 'q1', state: DESK_PARKED, lastEventId: -1, newest: -1 }, 'the shard keeps its heartbeat, told the newest id the desk had');
  const told = sent.length;
  desks.note({ kind: 'events', heads: [head(0)], list: [0, 0, 0, 9, 5, 0] });
  t.same(JSON.parse(replies[0].body).events, [{ type: 'message', n: 0, id: 0 }], 'the events wake it');
  t.equal(sent.length, told, 'and the shard, which sent them, needs no word of it');
  poll({ lastEventId: 0 });
  poll({ lastEventId: 0 });
  t.same(JSON.parse(replies[1].body).events, [], 'a new poll finishes the parked one, empty');
  const before = sent.length;
  const last = poll({ lastEventId: 0 })!;
  replies.length = 0;
  last.leave();
  t.same(sent.slice(before + 1).flatMap(deskEntries), [{ queueId: 'q1', state: DESK_IDLE, newest: -1 }], 'a client that leaves frees the queue to age');
  t.equal(replies.length, 0, 'and gets nothing');
});

t.test("the shard's notes take desks away", async (t) => {
  const { desks, grant, poll, replies, shard } = setup();
  grant();
  poll({ lastEventId: -1 });
  desks.note({ kind: 'drop', queueId: 'q1', status: 400, body: '{"code":"BAD_EVENT_QUEUE_ID"}' });
  t.equal(replies[0].status, 400, "a dropped queue's parked poll gets the shard's answer");
  t.equal(poll(), null, 'and its desk is gone');

  grant();
  grant({ queueId: 'q2', desk: 1, realmId: 2 });
  poll({ lastEventId: -1 });
  desks.note({ kind: 'auth', realmId: 1, revoked: ++shard.revoked });
  t.same(JSON.parse(replies[1].body).events, [], "a credentials change ends the realm's parked polls, empty");
  t.equal(poll(), null, "and takes the realm's desks away");
  t.equal(desks.size, 1, "another realm's desk stays");

  grant();
  desks.note({ kind: 'reset', revoked: ++shard.revoked });
  t.equal(desks.size, 0, 'a reset takes every desk away');

  grant();
  desks.note({ kind: 'drain' });
  poll({ lastEventId: -1 });
  t.same(JSON.parse(replies.at(-1)!.body).events, [], 'a draining desk answers at once');
});

t.test('the desk counts polls against the GET /events budget', async (t) => {
  const limiter = new RateLimiter([[60, 3]]);
  const { grant, poll, replies, sent } = setup(limiter);
  grant();
  for (let i = 0; i < 3; i++) poll({ lastEventId: -1, dontBlock: true });
  t.same(replies.map((r) => r.status), [200, 200, 429], 'the granting poll counts; then two more, then refused');
  t.equal(replies[0].headers?.['X-RateLimit-Remaining'], '1', 'with what is left');
  t.equal(JSON.parse(replies[2].body).code, 'RATE_LIMIT_HIT', 'refused as the shard refuses');
  t.equal(sent.flatMap(deskEntries).filter((poll) => poll.state !== DESK_IDLE).length, 2, 'a refused poll acknowledges nothing');
});

t.test('a desk says when its answer is ASCII, so the front end can skip the byte count', async (t) => {
  const { desks, grant, poll, replies } = setup();
  const wide = (n: number) => `{"type":"message","text":"caf\u00e9 \u{1F600} ${n}",`;
  grant({ ids: [1], heads: [head(1)], newestPruned: 0 });
  poll({ lastEventId: 0 });
  t.equal(replies[0].ascii, true, 'ASCII events: ASCII');
  t.same(JSON.parse(replies[0].body).events, [{ type: 'message', n: 1, id: 1 }]);

  desks.note({ kind: 'events', heads: [head(2), wide(3)], list: [0, 2, 0, 0, 3, 1] });
  poll({ lastEventId: 1 });
  t.equal(replies[1].ascii, false, 'with a non-ASCII event among them: not');
  t.same(JSON.parse(replies[1].body).events.map((e: { id: number }) => e.id), [2, 3], 'and both events are there');
  t.equal(JSON.parse(replies[1].body).events[1].text, 'caf\u00e9 \u{1F600} 3', 'the text whole');

  poll({ lastEventId: 2 });
  t.equal(replies[2].ascii, false, 'while the non-ASCII event is unacknowledged: not');
  desks.note({ kind: 'events', heads: [head(4)], list: [0, 4, 0] });
  poll({ lastEventId: 3 });
  t.equal(replies[3].ascii, true, 'once it is acknowledged: ASCII again');
  t.same(JSON.parse(replies[3].body).events.map((e: { id: number }) => e.id), [4]);

  // A parked poll woken by a note, and a grant that brings a non-ASCII event.
  const ticket = poll({ lastEventId: 4 });
  t.ok(ticket, 'parked');
  desks.note({ kind: 'events', heads: [wide(5)], list: [0, 5, 0] });
  t.equal(replies[4].ascii, false, 'woken with a non-ASCII event: not');
  t.equal(replies.length, 5);
  grant({ queueId: 'q2', desk: 1, ids: [7, 8], heads: [wide(7), head(8)], newestPruned: 6 });
  poll({ queueId: 'q2', lastEventId: 6 });
  t.equal(replies[5].ascii, false, "a grant's non-ASCII event counts");
  poll({ queueId: 'q2', lastEventId: 7 });
  t.equal(replies[6].ascii, true, 'until it is acknowledged');
  poll({ queueId: 'q2', lastEventId: 8, dontBlock: true });
  t.same(JSON.parse(replies[7].body).events, [], 'an empty answer');
  t.equal(replies[7].ascii, true, 'is ASCII');
});
