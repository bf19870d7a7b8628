import t from 'tap';
import { topicMessageIds } from '../../../src/api/messages/edit-rules.js';
import { startWorld } from './edit-world.js';

t.test('PATCH /messages/{id}: topic moves', async (t) => {
  const w = await startWorld(t);
  const ann = await w.user('Ann');
  const bob = await w.user('Bob');
  const general = w.realm.streamByName('general')!;
  const inTopic = (topic: string) => topicMessageIds(w.shard, w.realm, general.id, topic);
  const quiet = { send_notification_to_new_thread: false };

  const thread = async (topic: string, n: number) => {
    const ids: number[] = [];
    for (let i = 0; i < n; i++) ids.push(await w.send(i % 2 ? bob : ann, 'general', topic, `message ${i}`));
    return ids;
  };

  t.test('PATCH /messages/{id}: change_one moves only the target', async (t) => {
    const ids = await thread('one', 3);
    const res = await w.edit(ann, ids[1], { topic: 'one moved', ...quiet });
    t.equal(res.status, 200, 'moved');
    t.same(inTopic('one moved'), [ids[1]], 'the target is in the new topic');
    t.same(inTopic('one'), [ids[0], ids[2]], 'the others stay');
  });

  t.test('PATCH /messages/{id}: change_later moves the target and what follows', async (t) => {
    const ids = await thread('later', 4);
    await w.edit(bob, ids[1], { topic: 'later moved', propagate_mode: 'change_later', ...quiet });
    t.same(inTopic('later moved'), ids.slice(1), 'the target and the later messages moved');
    t.same(inTopic('later'), [ids[0]], 'the earlier one stays');
    const event = w.events.find((e) => e.event.type === 'update_message')!.event;
    t.same(event.message_ids, ids.slice(1), 'message_ids lists every moved message, ascending');
    t.equal(event.propagate_mode, 'change_later', 'propagate_mode');
  });

  t.test('PATCH /messages/{id}: change_all moves the whole topic, whatever the case of its name', async (t) => {
    const ids = await thread('All', 2);
    ids.push(await w.send(ann, 'general', 'all', 'same topic, other case'));
    await w.edit(ann, ids[2], { topic: 'all moved', propagate_mode: 'change_all', ...quiet });
    t.same(inTopic('all moved'), ids, 'every message of the topic moved');
    t.same(inTopic('all'), [], 'the old topic is empty');
  });

  t.test('PATCH /messages/{id}: a moved message reads back with its new topic and history', async (t) => {
    const [id] = await thread('readback', 1);
    await w.edit(bob, id, { topic: 'read back', ...quiet });
    const got = (await w.get(ann, id)).body.message;
    t.equal(got.subject, 'read back', 'the new topic');
    t.type(got.last_moved_timestamp, 'number', 'last_moved_timestamp is set');
    t.notOk('last_edit_timestamp' in got, 'a move is not a content edit');
    t.match(got.edit_history, [{ user_id: bob.id, prev_topic: 'readback', topic: 'read back' }], 'the edit_history entry');
    t.notOk('prev_content' in got.edit_history[0], 'without content fields');
  });

  t.test('PATCH /messages/{id}: update_message of a topic move', async (t) => {
    const [id] = await thread('evented', 1);
    await w.edit(ann, id, { topic: 'evented too', ...quiet });
    const updates = w.events.filter((e) => e.event.type === 'update_message');
    t.same(updates.flatMap((e) => e.userIds).sort((a, b) => a - b), w.ids(w.owner, ann, bob), 'to the subscribers');
    t.match(updates[0].event, { user_id: ann.id, message_id: id, message_ids: [id], stream_id: general.id, stream_name: 'general', orig_subject: 'evented', subject: 'evented too', topic_links: [], propagate_mode: 'change_one', rendering_only: false }, 'reference fields');
    t.notOk('new_stream_id' in updates[0].event, 'no new_stream_id within a channel');
    t.notOk('content' in updates[0].event, 'no content fields');
  });

  t.test('PATCH /messages/{id}: TOPIC RULES for the new topic', async (t) => {
    const [id] = await thread('rules', 1);
    await w.edit(ann, id, { topic: 'general chat', ...quiet });
    t.equal(w.stored(id)!.topic, '', 'the display name of the empty topic is the empty topic');
    t.equal((await w.get(ann, id)).body.message.subject, 'general chat', 'shown as the display name');
    t.equal((await w.get(ann, id, { allow_empty_topic_name: true })).body.message.subject, '', 'or empty to clients that allow it');
    await w.edit(ann, id, { topic: `  ${'y'.repeat(70)}  `, ...quiet });
    t.equal(w.stored(id)!.topic, `${'y'.repeat(57)}...`, 'trimmed and cut to 60 characters with ...');
    await w.setRealm({ mandatory_topics: true });
    for (const topic of ['', '(no topic)', 'general chat']) {
      const res = await w.edit(ann, id, { topic, ...quiet });
      t.equal(res.body.msg, 'Topics are required in this organization.', `"${topic}" is refused with mandatory topics`);
    }
    await w.setRealm({ mandatory_topics: false });
    t.equal(w.stored(id)!.edits.length, 2, 'the refused renames recorded nothing');
  });
});
