import t from 'tap';
import { topicKey, type MessageRecord } from '../../../src/model/message.js';
import { BulkBatch } from '../../../src/import/bulk.js';
import { idsUnder, insertMessage, type IdRange } from '../../../src/store/messages.js';
import { clearRealm, dumpRealm, loadRows, type DumpCursor } from '../../../src/store/realm-copy.js';
import { topicIds } from '../../../src/store/topic-ids.js';
import { startWorld } from './edit-world.js';

/**
 * The topics' newest ids and oldest id kept in memory (store/topic-ids.ts) against the index itself: each
 * kind of write that changes a topic's index is made after the topic has been read (so its
 * entry is there), and then every range is read both ways.
 */
t.test('topic ids in memory agree with the byTopic index after every kind of write', async (t) => {
  const w = await startWorld(t);
  const { shard, realm, owner } = w;
  const ann = await w.user('Ann');
  const general = realm.streamByName('general')!;
  const other = await w.channel(owner, 'other');
  const cache = topicIds(shard.store.byTopic);
  const quiet = { send_notification_to_new_thread: false, send_notification_to_old_thread: false };

  const stored = (streamId: number, topic: string, range: IdRange = {}) => [...idsUnder(shard.store.byTopic, [realm.id, streamId, topicKey(topic)], range)];
  /** Ranges of every shape: whole, newest first, limited, and bounded across the window's floor. */
  const ranges = (ids: number[]): IdRange[] => {
    const at = (i: number) => ids[Math.max(0, Math.min(ids.length - 1, i))] ?? 1;
    const n = ids.length;
    return [
      {},
      { reverse: true },
      { reverse: true, limit: 100 },
      { reverse: true, max: at(n - 2), limit: 5 },
      { limit: 3 },
      { min: at(n - 300), max: at(n - 200), reverse: true },
      { min: at(n - 300), max: at(n - 200) },
      { max: at(n - 150), reverse: true, limit: 200 },
      { min: at(n - 270), limit: 40 },
      { min: at(n - 3) + 1 },
      { max: at(0) - 1, reverse: true },
    ];
  };
  const agree = (what: string, streamId: number, topic: string) => {
    const all = stored(streamId, topic);
    for (const range of ranges(all)) {
      t.same([...cache.ids([realm.id, streamId, topicKey(topic)], range)], stored(streamId, topic, range), `${what}: ${topic} ${JSON.stringify(range)}`);
    }
    // What a send asks (api/user-topics/automatic.ts), kept from one call to the next: around
    // the topic's oldest ids, and past its newest.
    const first = all.slice(0, 2);
    for (const id of [0, 1, ...first, ...first.map((x) => x + 1), (all.at(-1) ?? 0) + 1, Number.MAX_SAFE_INTEGER]) {
      t.equal(cache.hasBelow([realm.id, streamId, topicKey(topic)], id), stored(streamId, topic, { max: id - 1, limit: 1 }).length > 0, `${what}: ${topic} has an id below ${id}`);
    }
    return all;
  };
  const page = async (streamId: number, topic: string) => {
    const reply = await w.call(ann, 'messages.list', { anchor: 'newest', num_before: 100, num_after: 0, narrow: [{ operator: 'channel', operand: streamId }, { operator: 'topic', operand: topic }] });
    t.equal(reply.status, 200, 'GET /messages');
    return (reply.body.messages as { id: number }[]).map((m) => m.id);
  };

  // A topic longer than the window (256 ids), and short ones.
  const big: number[] = [];
  for (let i = 0; i < 300; i++) big.push(await w.send(i % 2 ? ann : owner, 'general', 'Big', `message ${i}`));
  for (let i = 0; i < 4; i++) await w.send(ann, 'general', 'small', `small ${i}`);
  t.same(agree('after the sends', general.id, 'big'), big, 'the index holds the sends');
  t.same(await page(general.id, 'big'), big.slice(-100), 'a page of the long topic');
  agree('read once', general.id, 'small');

  const id = await w.send(ann, 'general', 'BIG', 'one more, the topic in other case');
  big.push(id);
  t.same(agree('a send', general.id, 'big'), big, 'the new message is there');
  t.same(await page(general.id, 'big'), big.slice(-100), 'and in the page');

  t.equal((await w.edit(ann, id, { content: 'edited' })).status, 200, 'a content edit');
  agree('a content edit', general.id, 'big');

  t.equal((await w.edit(ann, big[299], { topic: 'moved one', ...quiet })).status, 200, 'change_one');
  agree('change_one, old topic', general.id, 'big');
  agree('change_one, new topic', general.id, 'moved one');

  agree('read', general.id, 'moved later');
  t.equal((await w.edit(owner, big[250], { topic: 'moved later', propagate_mode: 'change_later', ...quiet })).status, 200, 'change_later');
  const left = agree('change_later, old topic', general.id, 'big');
  t.same(left, big.slice(0, 250), 'the earlier ones stay');
  t.same(agree('change_later, new topic', general.id, 'moved later'), [...big.slice(250, 299), id], 'the later ones moved');
  t.same(await page(general.id, 'big'), big.slice(150, 250), 'the page of what is left');

  agree('read', general.id, 'renamed');
  t.equal((await w.edit(owner, big[10], { topic: 'renamed', propagate_mode: 'change_all', ...quiet })).status, 200, 'change_all');
  t.same(agree('change_all, old topic', general.id, 'big'), [], 'the old topic is empty');
  t.same(agree('change_all, new topic', general.id, 'renamed'), big.slice(0, 250), 'the renamed topic');
  t.same(await page(general.id, 'big'), [], 'no page of the old name');

  agree('read', other.id, 'elsewhere');
  t.equal((await w.edit(owner, big[100], { stream_id: other.id, topic: 'elsewhere', propagate_mode: 'change_later', ...quiet })).status, 200, 'a move to another channel');
  t.same(agree('channel move, old', general.id, 'renamed'), big.slice(0, 100), 'what stayed');
  t.same(agree('channel move, new', other.id, 'elsewhere'), big.slice(100, 250), 'what moved');
  t.same(await page(other.id, 'elsewhere'), big.slice(150, 250), 'the page in the other channel');

  t.equal((await w.call(owner, 'messages.delete', { message_id: big[99] })).status, 200, 'a delete');
  t.same(agree('a delete', general.id, 'renamed'), big.slice(0, 99), 'the deleted message is gone');

  t.equal((await w.call(owner, 'streams.deleteTopic', { stream_id: general.id, topic_name: 'small' })).status, 200, 'delete_topic');
  t.same(agree('delete_topic', general.id, 'small'), [], 'the topic is gone');

  // An import's batch (src/import/bulk.ts), into a topic that has been read.
  const template = w.stored(big[0]) as MessageRecord;
  const batch = new BulkBatch(shard.store);
  const imported = 9_000_000;
  insertMessage(shard, batch, { ...template, id: imported, topic: 'renamed' });
  await batch.commit();
  t.same(agree('an import', general.id, 'renamed'), [...big.slice(0, 99), imported], 'the imported message is there');

  // A realm's rows cleared (a copy no longer served) and loaded again (a move back).
  const dumps: Uint8Array[] = [];
  for (let cursor: DumpCursor | null = { step: 0, after: null }; cursor; ) {
    const chunk = dumpRealm(shard.store, realm.id, cursor, 64 << 10, 1_000);
    dumps.push(chunk.bytes);
    cursor = chunk.next;
  }
  for (let cursor: DumpCursor | null = { step: 0, after: null }; cursor; ) cursor = (await clearRealm(shard.store, realm.id, cursor)).next;
  t.same(agree('the realm cleared', general.id, 'renamed'), [], 'nothing left');
  agree('the realm cleared', other.id, 'elsewhere');
  for (const bytes of dumps) await loadRows(shard.store, bytes);
  t.same(agree('the realm loaded', general.id, 'renamed'), [...big.slice(0, 99), imported], 'all back');
  t.same(agree('the realm loaded', other.id, 'elsewhere'), big.slice(100, 250), 'all back in the other channel');
});
