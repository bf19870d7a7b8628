import t from 'tap';
import { topicMessageIds } from '../../../src/api/messages/edit-rules.js';
import { ROLE, startWorld } from './edit-world.js';

t.test('PATCH /messages/{id}: MOVE_MESSAGES_TIME_LIMIT_EXCEEDED', async (t) => {
  const w = await startWorld(t);
  const member = await w.user('Mia');
  const moderator = await w.user('Mod', ROLE.moderator);
  const general = w.realm.streamByName('general')!;
  const quiet = { send_notification_to_new_thread: false };
  await w.setRealm({ move_messages_within_stream_limit_seconds: 3600, move_messages_between_streams_limit_seconds: 7200 });

  /** n messages in a topic, the first `old` of them `age` seconds old. */
  const topicWithOld = async (topic: string, n: number, old: number, age: number, stream = 'general') => {
    const ids: number[] = [];
    for (let i = 0; i < n; i++) ids.push(await w.send(member, stream, topic, `m${i}`));
    for (const id of ids.slice(0, old)) await w.age(id, age);
    return ids;
  };

  t.test('PATCH /messages/{id}: change_all past the limit is refused with the movable part, and nothing moves', async (t) => {
    const ids = await topicWithOld('partly old', 5, 3, 4000);
    const res = await w.edit(member, ids[4], { topic: 'moved', propagate_mode: 'change_all', ...quiet });
    t.equal(res.status, 400, 'refused');
    t.same(res.body, {
      result: 'error',
      msg: 'You only have permission to move the 2/5 most recent messages in this topic.',
      code: 'MOVE_MESSAGES_TIME_LIMIT_EXCEEDED',
      first_message_id_allowed_to_move: ids[3],
      total_messages_in_topic: 5,
      total_messages_allowed_to_move: 2,
    }, 'with the three extra fields');
    t.same(topicMessageIds(w.shard, w.realm, general.id, 'partly old'), ids, 'every message is still in the topic');
    t.ok(ids.every((id) => w.stored(id)!.edits.length === 0), 'and none has an edit entry');

    const partial = await w.edit(member, res.body.first_message_id_allowed_to_move, { topic: 'moved', propagate_mode: 'change_later', ...quiet });
    t.equal(partial.status, 200, 'change_later from first_message_id_allowed_to_move works');
    t.same(topicMessageIds(w.shard, w.realm, general.id, 'moved'), ids.slice(3), 'and moves the allowed part');
  });

  t.test('PATCH /messages/{id}: moderators are exempt', async (t) => {
    const ids = await topicWithOld('mod topic', 3, 2, 4000);
    const res = await w.edit(moderator, ids[2], { topic: 'mod moved', propagate_mode: 'change_all', ...quiet });
    t.equal(res.status, 200, 'the whole topic moves');
    t.same(topicMessageIds(w.shard, w.realm, general.id, 'mod moved'), ids, 'all of it');
  });

  t.test('PATCH /messages/{id}: the stricter of the applicable limits counts', async (t) => {
    const other = await w.channel(member, 'other');
    // 5000 s is within the channel limit (7200) but past the topic limit (3600).
    const ids = await topicWithOld('both', 3, 1, 5000);
    const streamOnly = await w.edit(member, ids[2], { stream_id: other.id, propagate_mode: 'change_all', ...quiet });
    t.equal(streamOnly.status, 200, 'a channel move within its own limit passes');
    const back = await topicWithOld('both again', 3, 1, 5000, 'other');
    const both = await w.edit(member, back[2], { stream_id: general.id, topic: 'renamed', propagate_mode: 'change_all', ...quiet });
    t.equal(both.body.code, 'MOVE_MESSAGES_TIME_LIMIT_EXCEEDED', 'moving and renaming takes the topic limit');
    t.equal(both.body.total_messages_allowed_to_move, 2, 'two are recent enough');
  });

  t.test('PATCH /messages/{id}: only messages the mover can access are counted (protected history)', async (t) => {
    const vault = await w.channel(w.owner, 'vault', { inviteOnly: true, historyPublic: false });
    const before: number[] = [];
    for (let i = 0; i < 3; i++) before.push(await w.send(w.owner, 'vault', 'secret topic', `before ${i}`));
    for (const id of before) await w.age(id, 9000);
    await w.call(w.owner, 'subscriptions.add', { subscriptions: [{ name: 'vault' }], principals: [member.id] });
    const old = await w.send(w.owner, 'vault', 'secret topic', 'after, old');
    await w.age(old, 4000);
    const recent = await w.send(member, 'vault', 'secret topic', 'after, recent');
    const res = await w.edit(member, recent, { topic: 'secret moved', propagate_mode: 'change_all', ...quiet });
    t.equal(res.body.code, 'MOVE_MESSAGES_TIME_LIMIT_EXCEEDED', 'refused');
    t.equal(res.body.total_messages_in_topic, 2, 'the three messages from before the mover joined are not counted');
    t.equal(res.body.total_messages_allowed_to_move, 1, 'one is recent enough');
    t.equal(res.body.first_message_id_allowed_to_move, recent, 'the recent one');
    t.equal(vault.id, w.stored(recent)!.streamId, 'nothing moved');
  });

  t.test('PATCH /messages/{id}: a channel move takes only what the mover can access', async (t) => {
    await w.setRealm({ move_messages_within_stream_limit_seconds: 'unlimited', move_messages_between_streams_limit_seconds: 'unlimited' });
    await w.channel(w.owner, 'crypt', { inviteOnly: true, historyPublic: false });
    const hidden = await w.send(w.owner, 'crypt', 'tomb', 'before the member');
    await w.call(w.owner, 'subscriptions.add', { subscriptions: [{ name: 'crypt' }], principals: [member.id] });
    const seen = await w.send(w.owner, 'crypt', 'tomb', 'after the member');
    const res = await w.edit(member, seen, { stream_id: general.id, propagate_mode: 'change_all', ...quiet });
    t.equal(res.status, 200, 'moved');
    t.equal(w.stored(seen)!.streamId, general.id, 'the message the member received moved');
    t.equal(w.stored(hidden)!.streamId, w.realm.streamByName('crypt')!.id, 'the one from before they joined stayed');
  });
});
