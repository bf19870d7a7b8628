import t from 'tap';
import { clearFlips, FLIP_BLOCK, flipIds, flippedAmong, hasFlip, setFlip } from '../../src/store/flips.js';
import { inProcessShard } from '../helpers/shard.js';

/**
 * The flip blocks' write path (store/flips.ts): a batch copies a block once and changes it in
 * place until it commits, so what matters is that no change is lost when batches overlap: one
 * that awaits between two flips of a block while another action changes the same block, a
 * batch used again after its commit, a block emptied and filled again in one batch.
 */
t.test('flip blocks under overlapping batches', async (t) => {
  const { shard, realm } = await inProcessShard(t, 'Blocks');
  const r = realm.id;
  const user = 7;
  const base = 5 * FLIP_BLOCK;
  const ids = () => [...flipIds(shard.store.flips, r, user)];

  t.test('two batches on one block, the first awaiting between its flips', async (t) => {
    const a = shard.batch();
    setFlip(shard, a, r, user, base + 1, true);
    const b = shard.batch();
    setFlip(shard, b, r, user, base + 2, true);
    t.ok(hasFlip(shard, r, user, base + 1) && hasFlip(shard, r, user, base + 2), 'reads see both uncommitted flips');
    await b.commit();
    // The first batch goes on after the second committed a block made from its own.
    setFlip(shard, a, r, user, base + 3, true);
    await a.commit();
    t.same(ids(), [base + 1, base + 2, base + 3], "the second batch's flip survives the first's commit");
  });

  t.test('a batch used again after its commit writes again', async (t) => {
    const a = shard.batch();
    setFlip(shard, a, r, user, base + 4, true);
    await a.commit();
    setFlip(shard, a, r, user, base + 5, true);
    await a.commit();
    t.same(ids(), [base + 1, base + 2, base + 3, base + 4, base + 5], 'both commits landed');
  });

  t.test('emptied and filled again in one batch, across a boundary', async (t) => {
    const a = shard.batch();
    for (const id of [base + 1, base + 2, base + 3, base + 4, base + 5]) setFlip(shard, a, r, user, id, false);
    t.same([...flippedAmong(shard, r, user, [base + 1, base + 5])], [], 'the batch sees the block empty');
    setFlip(shard, a, r, user, base + 9, true);
    setFlip(shard, a, r, user, base + FLIP_BLOCK, true);
    setFlip(shard, a, r, user, base - 1, true);
    await a.commit();
    t.same(ids(), [base - 1, base + 9, base + FLIP_BLOCK], 'three blocks, one bit each');
    t.same([...flipIds(shard.store.flips, r, user, { reverse: true, limit: 2 })], [base + FLIP_BLOCK, base + 9], 'newest first, limited');
    t.same([...flipIds(shard.store.flips, r, user, { min: base, max: base + FLIP_BLOCK - 1 })], [base + 9], 'within a range');
    t.same([...shard.store.flipUsers.getKeys({ start: [r], end: [r + 1] })], [[r, 4, user], [r, 5, user], [r, 6, user]], 'who has a flip, per block');
  });

  t.test('clearing every flip of a user', async (t) => {
    const other = shard.batch();
    setFlip(shard, other, r, user + 1, base + 9, true);
    await other.commit();
    const a = shard.batch();
    clearFlips(shard, a, r, user);
    await a.commit();
    t.same(ids(), [], "the user's flips are gone");
    t.same([...flipIds(shard.store.flips, r, user + 1)], [base + 9], "another user's stay");
    t.same([...shard.store.flipUsers.getKeys({ start: [r], end: [r + 1] })], [[r, 5, user + 1]], 'and so does only their reverse row');
  });
});
