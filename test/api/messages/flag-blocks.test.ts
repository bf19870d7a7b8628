import t from 'tap';
import { BulkBatch } from '../../../src/import/bulk.js';
import { READ_FLIP, type MessageRecord } from '../../../src/model/message.js';
import { storedBitsOfIds, userFlags } from '../../../src/model/read-state.js';
import type { UserRecord } from '../../../src/model/types.js';
import { clearRealm, dumpRealm, loadRows, type DumpCursor } from '../../../src/store/realm-copy.js';
import { FLIP_BLOCK } from '../../../src/store/flips.js';
import { startWorld } from './edit-world.js';

/**
 * The users' flag blocks kept in memory (store/flag-blocks.ts) against the tables themselves:
 * every user's stored bits are read (so that their blocks' entries are there) before each kind of
 * write that changes flags, and after it the cached answer and each user's GET /messages page are
 * compared with a fresh read of uflags and flips.
 */
t.test('flag blocks in memory agree with the stored flags after every kind of flag write', async (t) => {
  const w = await startWorld(t);
  const { shard, realm, owner } = w;
  const ann = await w.user('Ann');
  const bob = await w.user('Bob');
  const users = [owner, ann, bob];
  const other = await w.channel(owner, 'other', { members: users });
  const quiet = { send_notification_to_new_thread: false, send_notification_to_old_thread: false };

  /** Every message id the realm's channels hold, ascending (what the pages below show). */
  const allIds = (): number[] => {
    const ids: number[] = [];
    for (const key of shard.store.messages.getKeys({})) if (typeof key === 'number') ids.push(key);
    return ids.sort((a, b) => a - b);
  };
  /** A user's stored bits from the tables, committed, with no cache in between. */
  const fresh = (userId: number, ids: number[]): [number, number][] => {
    const out: [number, number][] = [];
    for (const id of ids) {
      let bits = (shard.store.uflags.get([realm.id, userId, id]) as number | undefined) ?? 0;
      const block = shard.store.flips.get([realm.id, userId, Math.floor(id / FLIP_BLOCK)]) as Uint8Array | undefined;
      if (block && (block[(id % FLIP_BLOCK) >> 3] & (1 << (id & 7))) !== 0) bits |= READ_FLIP;
      if (bits !== 0) out.push([id, bits]);
    }
    return out;
  };
  const cached = (userId: number, ids: number[]): [number, number][] => [...storedBitsOfIds(shard, realm, userId, ids)].sort((a, b) => a[0] - b[0]);
  /** Fills every user's entries: what the next write must drop. */
  const warm = () => {
    for (const u of users) cached(u.id, allIds());
  };
  const page = async (user: UserRecord, streamId: number, topic: string) => {
    const reply = await w.call(user, 'messages.list', { anchor: 'newest', num_before: 100, num_after: 0, narrow: [{ operator: 'channel', operand: streamId }, { operator: 'topic', operand: topic }] });
    t.equal(reply.status, 200, `GET /messages for ${user.fullName}`);
    return reply.body.messages as { id: number; flags: string[] }[];
  };
  const pages: [number, string][] = [];
  const agree = async (what: string) => {
    const ids = allIds();
    for (const u of users) {
      t.same(cached(u.id, ids), fresh(u.id, ids), `${what}: ${u.fullName}'s stored bits`);
      for (const [streamId, topic] of pages) {
        for (const m of await page(u, streamId, topic)) {
          const bits = new Map(fresh(u.id, [m.id])).get(m.id) ?? 0;
          t.same(m.flags, userFlags(shard, realm, u.id, w.stored(m.id) as MessageRecord, bits), `${what}: ${u.fullName}'s flags of ${m.id}`);
        }
      }
    }
    warm();
  };
  const ok = async (what: string, user: UserRecord, op: string, params: Record<string, unknown> = {}) => {
    const reply = await w.call(user, op, params);
    t.equal(reply.status, 200, what);
    return reply.body;
  };

  const general = realm.streamByName('general')!;
  const ids: number[] = [];
  for (let i = 0; i < 80; i++) ids.push(await w.send(i % 3 === 0 ? ann : i % 3 === 1 ? bob : owner, 'general', 'lunch', `message ${i}`));
  pages.push([general.id, 'lunch']);
  await agree('after the sends');

  // Mention flags on send.
  ids.push(await w.send(owner, 'general', 'lunch', '@**Ann** and @**all**, lunch?'));
  await agree('a send with mentions');

  await ok('mark read by ids', ann, 'messages.updateFlags', { messages: ids.slice(0, 10), op: 'add', flag: 'read' });
  await agree('mark read by ids');
  await ok('mark unread by ids', ann, 'messages.updateFlags', { messages: ids.slice(2, 5), op: 'remove', flag: 'read' });
  await agree('mark unread by ids');
  await ok('star', ann, 'messages.updateFlags', { messages: [ids[3], ids[40]], op: 'add', flag: 'starred' });
  await agree('star');
  await ok('unstar', ann, 'messages.updateFlags', { messages: [ids[3]], op: 'remove', flag: 'starred' });
  await agree('unstar');
  // 64 ids or more: the stored bits are read through the cache inside the action.
  await ok('mark 70 read by ids', bob, 'messages.updateFlags', { messages: ids.slice(0, 70), op: 'add', flag: 'read' });
  await agree('mark 70 read by ids');
  await ok('mark 70 unread by ids', bob, 'messages.updateFlags', { messages: ids.slice(5, 75), op: 'remove', flag: 'read' });
  await agree('mark 70 unread by ids');

  const narrow = JSON.stringify([{ operator: 'channel', operand: general.id }, { operator: 'topic', operand: 'lunch' }]);
  await ok('mark read by narrow', owner, 'messages.updateFlagsForNarrow', { narrow, anchor: 'oldest', num_before: 0, num_after: 1000, op: 'add', flag: 'read' });
  await agree('mark read by narrow');
  await ok('mark unread by narrow', owner, 'messages.updateFlagsForNarrow', { narrow, anchor: 'newest', num_before: 30, num_after: 0, op: 'remove', flag: 'read' });
  await agree('mark unread by narrow');
  await ok('star by narrow', bob, 'messages.updateFlagsForNarrow', { narrow, anchor: 'newest', num_before: 5, num_after: 0, op: 'add', flag: 'starred' });
  await agree('star by narrow');

  await ok('mark topic read', ann, 'messages.markTopicAsRead', { stream_id: general.id, topic_name: 'lunch' });
  await agree('mark topic read');
  await ok('mark unread again', ann, 'messages.updateFlags', { messages: ids.slice(60, 70), op: 'remove', flag: 'read' });
  await agree('mark unread again');
  await ok('mark all read', ann, 'messages.markAllAsRead');
  await agree('mark all read');
  await ok('mark unread after all', ann, 'messages.updateFlags', { messages: [ids[77], ids[78]], op: 'remove', flag: 'read' });
  await agree('mark unread after all');

  // Deletes: a starred, mentioned and flipped message goes with its rows.
  await ok('star the mention', ann, 'messages.updateFlags', { messages: [ids[80]], op: 'add', flag: 'starred' });
  await agree('star the mention');
  await ok('a delete', owner, 'messages.delete', { message_id: ids[80] });
  await agree('a delete');
  await ok('a delete of a flipped message', owner, 'messages.delete', { message_id: ids[78] });
  await agree('a delete of a flipped message');

  // Moves: of one message with a mention (its mention bits are worked out again), of the later
  // ones to another topic, and of a whole topic to another channel.
  const mention = await w.send(ann, 'general', 'lunch', '@**Bob** this one moves');
  await agree('another mention');
  t.equal((await w.edit(owner, mention, { topic: 'dinner', ...quiet })).status, 200, 'move one');
  pages.push([general.id, 'dinner']);
  await agree('move one');
  t.equal((await w.edit(owner, ids[60], { topic: 'dinner', propagate_mode: 'change_later', ...quiet })).status, 200, 'move later');
  await agree('move later');
  t.equal((await w.edit(owner, ids[60], { stream_id: other.id, topic: 'dinner', propagate_mode: 'change_all', ...quiet })).status, 200, 'move to another channel');
  pages.push([other.id, 'dinner']);
  await agree('move to another channel');

  // An import's batch writing flag rows directly.
  const batch = new BulkBatch(shard.store);
  batch.put(shard.store.uflags, [realm.id, bob.id, ids[1]], 2);
  await batch.commit();
  await agree('an import');

  // A realm's rows cleared (a copy no longer served) and loaded again (a move back).
  const dumps: Uint8Array[] = [];
  for (let cursor: DumpCursor | null = { step: 0, after: null }; cursor; ) {
    const chunk = dumpRealm(shard.store, realm.id, cursor, 64 << 10, 1_000);
    dumps.push(chunk.bytes);
    cursor = chunk.next;
  }
  const before = users.map((u) => fresh(u.id, allIds()));
  t.ok(before.some((rows) => rows.length > 0), 'some user has stored bits before the clear');
  for (let cursor: DumpCursor | null = { step: 0, after: null }; cursor; ) cursor = (await clearRealm(shard.store, realm.id, cursor)).next;
  for (const u of users) t.same(cached(u.id, ids), [], `the realm cleared: no stored bits for ${u.fullName}`);
  for (const bytes of dumps) await loadRows(shard.store, bytes);
  const ids2 = allIds();
  t.same(users.map((u) => cached(u.id, ids2)), before, 'the realm loaded: every user has their stored bits back');
});

t.test("one user's flags never appear in another's page", async (t) => {
  const w = await startWorld(t);
  const { shard, realm, owner } = w;
  const ann = await w.user('Ann');
  const bob = await w.user('Bob');
  const general = realm.streamByName('general')!;
  const ids: number[] = [];
  for (let i = 0; i < 20; i++) ids.push(await w.send(owner, 'general', 'secret', `message ${i}`));
  const flagsOf = async (user: UserRecord) => {
    const reply = await w.call(user, 'messages.list', { anchor: 'newest', num_before: 100, num_after: 0, narrow: [{ operator: 'channel', operand: general.id }, { operator: 'topic', operand: 'secret' }] });
    t.equal(reply.status, 200, 'GET /messages');
    return new Map((reply.body.messages as { id: number; flags: string[] }[]).map((m) => [m.id, m.flags]));
  };
  // Both users' blocks are in memory before Ann's writes.
  await flagsOf(ann);
  await flagsOf(bob);
  t.equal((await w.call(ann, 'messages.updateFlags', { messages: ids.slice(0, 5), op: 'add', flag: 'starred' })).status, 200, 'Ann stars five');
  t.equal((await w.call(ann, 'messages.updateFlags', { messages: ids.slice(0, 10), op: 'add', flag: 'read' })).status, 200, 'Ann reads ten');
  const annFlags = await flagsOf(ann);
  const bobFlags = await flagsOf(bob);
  for (const id of ids.slice(0, 5)) t.ok(annFlags.get(id)!.includes('starred'), `Ann's page: ${id} starred`);
  for (const id of ids.slice(0, 10)) t.ok(annFlags.get(id)!.includes('read'), `Ann's page: ${id} read`);
  for (const id of ids) {
    t.notOk(bobFlags.get(id)!.includes('starred'), `Bob's page: ${id} not starred`);
    t.notOk(bobFlags.get(id)!.includes('read'), `Bob's page: ${id} unread`);
  }
  t.same([...storedBitsOfIds(shard, realm, bob.id, ids)], [], 'Bob has no stored bits');
  // And the other way: Bob's writes leave Ann's page as it was.
  t.equal((await w.call(bob, 'messages.updateFlags', { messages: ids.slice(15), op: 'add', flag: 'starred' })).status, 200, 'Bob stars five');
  t.same(await flagsOf(ann), annFlags, "Ann's page is unchanged by Bob's stars");
});
