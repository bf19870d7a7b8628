import t from 'tap';
import { doSendMessage } from '../../../src/api/messages/send.js';
import { inProcessShard } from '../../helpers/shard.js';

/**
 * A long narrow scan runs in slices (lib/slices.ts): while one user walks thousands of messages,
 * the shard's other requests are answered between slices; and the slices join up exactly, so
 * the answer is the one an unsliced walk gives.
 */
t.test('a long scan lets other requests through, and misses nothing', async (t) => {
  const s = await inProcessShard(t);
  const general = s.realm.streamByName('general')!;
  const kept: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (next < 5000) {
        const n = next++;
        const msg = await doSendMessage(s.shard, s.realm, { sender: s.owner, stream: general, topic: `topic ${n % 7}`, content: `message number ${n}`, client: 'test', readBySender: true });
        if (n % 7 !== 3) kept.push(msg.id);
      }
    }),
  );
  kept.sort((a, b) => a - b);

  // Every message but one topic's: the whole channel walked, newest first, 5,000 asked for.
  const narrow = [{ operator: 'channel', operand: 'general' }, { operator: 'topic', operand: 'topic 3', negated: true }];
  const order: string[] = [];
  const scan = s.call(s.owner, 'messages.list', { anchor: 'newest', num_before: 5000, num_after: 0, narrow }).then((r) => (order.push('scan'), r));
  const quick = s.call(s.owner, 'users.me').then((r) => (order.push('users/me'), r));
  const [long, me] = await Promise.all([scan, quick]);
  t.equal(me.status, 200, 'GET /users/me answered');
  t.same(order, ['users/me', 'scan'], 'while the scan was still running');

  t.equal(long.status, 200, 'the scan answered');
  const ids = long.body.messages.map((m: { id: number }) => m.id) as number[];
  t.same(ids, kept, `every message but the excluded topic's (${kept.length}), in order, none twice: what an unsliced walk finds`);
  t.equal(long.body.found_oldest, true, 'found_oldest');
});
