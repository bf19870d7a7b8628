import t from 'tap';
import { ShardDesks, type QueueHooks } from '../../../src/api/events/desk.js';
import { EventQueue } from '../../../src/api/events/queue.js';
import type { Timer } from '../../../src/lib/timer-wheel.js';
import type { Shard } from '../../../src/shard/shard.js';
import { DESK_ANSWERED, DESK_PARKED, deskTask } from '../../../src/shard/desk-wire.js';

/**
 * The shard's side of a desk's poll (api/events/desk.ts run): a parked poll keeps a heartbeat,
 * unless events the desk had not seen were already on their way to it, which answer the poll
 * as they arrive (the desk then sends no DESK_IDLE: host/desk.ts).
 */
function setup() {
  const calls: string[] = [];
  const queue = new EventQueue({ realmId: 1, userId: 7, eventTypes: null, narrow: [], allPublicStreams: false, applyMarkdown: true, clientGravatar: false, capabilities: {}, lifespanSecs: 600 }, 1, 'q1');
  queue.desk = 0;
  const hooks: QueueHooks = {
    queue: (id) => (id === 'q1' ? queue : undefined),
    armExpiry: () => void calls.push('expiry'),
    cancelExpiry: () => void calls.push('no expiry'),
    heartbeat: () => {
      calls.push('heartbeat');
      return {} as Timer;
    },
  };
  const shard = { config: { rateLimits: { enabled: false, perUser: [] } }, wheel: { cancel: () => void calls.push('cancel') }, toFront: () => undefined } as unknown as Shard;
  return { desks: new ShardDesks(shard, hooks), queue, calls };
}

t.test('a poll parked at a desk that has seen every event keeps a heartbeat', async (t) => {
  const { desks, queue, calls } = setup();
  queue.push({ type: 'message' }, 4, 0);
  desks.run(deskTask('q1', DESK_PARKED, 4, 4));
  t.same(calls, ['no expiry', 'heartbeat'], 'parked: the heartbeat runs, the queue does not age');
  t.ok(queue.remoteParked, 'the queue counts as polled');
});

t.test('a poll parked below events already sent to the desk is over for the shard', async (t) => {
  const { desks, queue, calls } = setup();
  queue.push({ type: 'message' }, 4, 0);
  queue.push({ type: 'message' }, 5, 0);
  // The desk parked it having seen 4; event 5 was delivered (and sent to the desk) meanwhile.
  desks.run(deskTask('q1', DESK_PARKED, 4, 4));
  t.same(calls, ['expiry'], 'no heartbeat: the queue ages until the next poll');
  t.equal(queue.remoteParked, null, 'the queue does not count as polled');
});

t.test('a poll answered at the desk lets the queue age', async (t) => {
  const { desks, calls } = setup();
  desks.run(deskTask('q1', DESK_ANSWERED));
  t.same(calls, ['expiry']);
});
