import t from 'tap';
import { dmKey, topicKey } from '../../../src/model/message.js';
import { setFlag } from '../../../src/model/read-state.js';
import { ROLE, startWorld } from './edit-world.js';

t.test('DELETE /messages/{id}: what a deletion removes, and who hears of it', async (t) => {
  const w = await startWorld(t);
  const ann = await w.user('Ann');
  const bob = await w.user('Bob');
  const admin = await w.user('Ada', ROLE.administrator);
  await w.unsubscribe(admin, 'general');
  const { store } = w.shard;
  const r = w.realm.id;
  const general = w.realm.streamByName('general')!;
  const star = async (user: typeof ann, id: number) => {
    const batch = w.shard.batch();
    setFlag(w.shard, batch, w.realm, user.id, w.stored(id)!, 'starred', true);
    await batch.commit();
  };
  const keys = (db: typeof store.uflags, start: unknown[], end: unknown[]) => [...db.getKeys({ start: start as never, end: end as never })];

  t.test('DELETE /messages/{id}: the message, its index rows and every flag row go', async (t) => {
    const id = await w.send(ann, 'general', 'Gone Soon', 'hi @**Bob**');
    await star(bob, id);
    await star(admin, id);
    t.ok(store.uflags.get([r, bob.id, id]), 'Bob has a flag row (mentioned, starred)');
    t.ok(store.uflags.get([r, admin.id, id]), 'the admin has a historical row (starred)');
    const res = await w.call(ann, 'messages.delete', { message_id: id });
    t.equal(res.status, 200, 'deleted');
    t.equal(store.messages.get(id), undefined, 'the message row is gone');
    t.equal(store.byStream.get([r, general.id, id]), undefined, 'the channel index row is gone');
    t.equal(store.byTopic.get([r, general.id, topicKey('Gone Soon'), id]), undefined, 'the topic index row is gone');
    t.equal(store.bySender.get([r, ann.id, id]), undefined, 'the sender index row is gone');
    for (const user of [bob, admin]) {
      t.equal(store.uflags.get([r, user.id, id]), undefined, `${user.fullName}'s flag row is gone`);
      t.equal(store.uflagIdx.get([r, user.id, 'starred', id]), undefined, `${user.fullName}'s starred index row is gone`);
    }
    t.same(keys(store.uflagUsers, [r, id], [r, id + 1]), [], 'and the reverse index of who had rows');
  });

  t.test('DELETE /messages/{id}: delete_message in the reference shape to those who could see it', async (t) => {
    const id = await w.send(ann, 'general', 'Mixed Case', 'bye');
    await star(admin, id);
    await w.call(ann, 'messages.delete', { message_id: id });
    const deletes = w.events.filter((e) => e.event.type === 'delete_message');
    t.equal(deletes.length, 1, 'one event');
    t.same(deletes[0].event, { type: 'delete_message', message_ids: [id], stream_id: general.id, topic: 'mixed case', message_type: 'stream' }, 'message_ids, channel and the lower-cased topic, as the reference sends them');
    t.same(deletes[0].userIds, w.ids(w.owner, ann, bob, admin), 'to the subscribers and to the unsubscribed admin who starred it');
  });

  t.test('DELETE /messages/{id}: a direct message', async (t) => {
    const id = await w.dm(ann, [bob], 'private');
    await w.call(ann, 'messages.delete', { message_id: id });
    const del = w.events.find((e) => e.event.type === 'delete_message')!;
    t.same(del.event, { type: 'delete_message', message_ids: [id], message_type: 'private' }, 'no channel fields');
    t.same(del.userIds, w.ids(ann, bob), 'to the participants');
    t.equal(store.byDm.get([r, dmKey([ann.id, bob.id]), id]), undefined, 'the conversation index row is gone');
    t.equal(store.byUserDm.get([r, bob.id, id]), undefined, "and each participant's");
  });

  t.test('DELETE /messages/{id}: in a channel with protected history only those who received it hear of it', async (t) => {
    await w.channel(ann, 'vault', { inviteOnly: true, historyPublic: false, members: [bob] });
    const id = await w.send(ann, 'vault', 'secrets', 'before Ada');
    await w.call(ann, 'subscriptions.add', { subscriptions: [{ name: 'vault' }], principals: [admin.id] });
    const byAdmin = await w.call(admin, 'messages.delete', { message_id: id });
    t.equal(byAdmin.body.msg, 'Invalid message(s)', 'an administrator who joined later cannot even reach it');
    await w.call(ann, 'messages.delete', { message_id: id });
    t.equal(w.stored(id), undefined, 'the sender deleted it');
    const del = w.events.find((e) => e.event.type === 'delete_message')!;
    t.same(del.userIds, w.ids(ann, bob), 'the subscribers who received it, not the one who joined later');
  });
});
