import t from 'tap';
import { MAX_UNREAD_MESSAGES, unreadIds } from '../../../src/api/events/register-messages.js';
import { doSendMessage } from '../../../src/api/messages/send.js';
import { setFlag } from '../../../src/model/read-state.js';
import { getMessage } from '../../../src/store/messages.js';
import { ROLE, startShard } from '../realm/harness.js';

/**
 * The unread list is capped like the reference's (newest first, MAX_UNREAD_MESSAGES); checked
 * in-process with a small cap, since 50,000 messages would only slow the suite down.
 */
t.test('POST /register: unread ids are the newest ones, flips included', async (t) => {
  const h = await startShard(t);
  const ann = await h.user(ROLE.member);
  const bob = await h.user(ROLE.member);
  const ids: number[] = [];
  for (let i = 0; i < 6; i++) {
    const msg = await doSendMessage(h.shard, h.realm, { sender: bob, content: `dm ${i}`, client: 'test', readBySender: true, recipients: [ann] });
    ids.push(msg.id);
  }
  t.equal(MAX_UNREAD_MESSAGES, 50_000, 'the reference\'s cap');
  t.same(unreadIds(h.shard, h.realm, ann, 100), [...ids].reverse(), 'all six, newest first');
  t.same(unreadIds(h.shard, h.realm, ann, 3), ids.slice(3).reverse(), 'capped: the three newest');
  t.same(unreadIds(h.shard, h.realm, bob, 100), [], 'the sender read them as he sent them');

  // Read the newest one out of order: a flip above the watermark.
  const batch = h.shard.batch();
  setFlag(h.shard, batch, h.realm, ann.id, getMessage(h.shard, h.realm, ids[5])!, 'read', true);
  await batch.commit();
  t.same(unreadIds(h.shard, h.realm, ann, 3), [ids[4], ids[3], ids[2]], 'a read message does not take a place under the cap');
});
