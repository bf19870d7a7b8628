import t from 'tap';
import { doSendMessage } from '../../../src/api/messages/send.js';
import { doCreateRealm } from '../../../src/api/realm/actions.js';
import { createInitialChannels } from '../../../src/api/streams/actions.js';
import { ROLE, startWorld } from './edit-world.js';

t.test('PATCH /messages/{id}: who may edit content, and malformed requests', async (t) => {
  const w = await startWorld(t);
  const ann = await w.user('Ann');
  const bob = await w.user('Bob');
  const admin = await w.user('Ada', ROLE.administrator);

  t.test('PATCH /messages/{id}: only the sender edits content, even an administrator may not', async (t) => {
    const id = await w.send(ann, 'general', 'mine', 'by Ann');
    for (const user of [bob, admin]) {
      const res = await w.edit(user, id, { content: 'not yours' });
      t.same(res.body, { result: 'error', msg: "You don't have permission to edit this message", code: 'BAD_REQUEST' }, `${user.fullName} is refused`);
    }
    t.equal(w.stored(id)!.content, 'by Ann', 'the content is unchanged');
  });

  t.test('PATCH /messages/{id}: allow_message_editing off stops content edits, not topic moves', async (t) => {
    const id = await w.send(ann, 'general', 'switch', 'text');
    await w.setRealm({ allow_message_editing: false });
    const res = await w.edit(ann, id, { content: 'changed' });
    t.equal(res.body.msg, 'Your organization has turned off message editing', 'content edits are off');
    const move = await w.edit(ann, id, { topic: 'switched' });
    t.equal(move.status, 200, 'a topic move still works');
    await w.setRealm({ allow_message_editing: true });
  });

  t.test('PATCH /messages/{id}: message_content_edit_limit_seconds, with the 20 second grace', async (t) => {
    await w.setRealm({ message_content_edit_limit_seconds: 60 });
    const old = await w.send(ann, 'general', 'limits', 'old one');
    await w.age(old, 100);
    const late = await w.edit(ann, old, { content: 'too late' });
    t.equal(late.body.msg, 'The time limit for editing this message has passed', 'past the limit and grace');
    const recent = await w.send(ann, 'general', 'limits', 'recent one');
    await w.age(recent, 70);
    t.equal((await w.edit(ann, recent, { content: 'in the grace' })).status, 200, 'within the grace period');
    await w.setRealm({ message_content_edit_limit_seconds: 'unlimited' });
    t.equal((await w.edit(ann, old, { content: 'no limit now' })).status, 200, 'unlimited allows old edits');
  });

  t.test('PATCH /messages/{id}: malformed requests change nothing', async (t) => {
    const id = await w.send(ann, 'general', 'shape', 'content');
    const cases: [Record<string, unknown>, string, string?][] = [
      [{}, 'Nothing to change'],
      [{ topic: 'shape' }, 'Nothing to change'],
      [{ content: 'x', propagate_mode: 'change_all' }, 'Invalid propagate_mode without topic edit'],
      [{ content: 'x', stream_id: w.realm.streamByName('general')!.id + 1000 }, 'Cannot change message content while changing channel'],
      [{ topic: 'x', propagate_mode: 'change_some' }, 'Invalid propagate_mode', 'REQUEST_VARIABLE_INVALID'],
    ];
    const other = await w.channel(ann, 'elsewhere');
    cases.push([{ content: 'x', stream_id: other.id }, 'Cannot change message content while changing channel']);
    for (const [params, msg, code] of cases) {
      const res = await w.edit(ann, id, params);
      t.equal(res.status, 400, `${JSON.stringify(params)} is refused`);
      t.equal(res.body.msg, msg, `with "${msg}"`);
      if (code) t.equal(res.body.code, code, `and ${code}`);
    }
    const stored = w.stored(id)!;
    t.same([stored.content, stored.topic, stored.edits.length], ['content', 'shape', 0], 'nothing changed');
  });

  t.test('PATCH /messages/{id}: messages one cannot read are "Invalid message(s)"', async (t) => {
    const dm = await w.dm(ann, [bob], 'between us');
    const res = await w.edit(admin, dm, { content: 'x' });
    t.same(res.body, { result: 'error', msg: 'Invalid message(s)', code: 'BAD_REQUEST' }, "another pair's DM");
    const missing = await w.edit(ann, 99_999_999, { content: 'x' });
    t.equal(missing.body.msg, 'Invalid message(s)', 'a message that does not exist');
  });

  t.test('PATCH, DELETE and history: a message of another realm is "Invalid message(s)"', async (t) => {
    const { owner: stranger } = await doCreateRealm(w.shard, { id: 2, subdomain: 'other', name: 'Other', ownerEmail: 'stranger@example.com', ownerFullName: 'Stranger' });
    const otherRealm = w.shard.realm(2)!;
    await createInitialChannels(w.shard, otherRealm, stranger);
    const msg = await doSendMessage(w.shard, otherRealm, { sender: stranger, content: 'elsewhere', client: 'test', readBySender: true, stream: otherRealm.streamByName('general')!, topic: 'far' });
    for (const [op, params] of [['messages.update', { content: 'x' }], ['messages.delete', {}], ['messages.history', {}]] as const) {
      const res = await w.call(w.owner, op, { message_id: msg.id, ...params });
      t.equal(res.body.msg, 'Invalid message(s)', `${op} from realm 1`);
    }
    t.equal(w.shard.read<{ content: string }>(w.shard.store.messages, msg.id)!.content, 'elsewhere', 'the message is untouched');
  });

  t.test('PATCH /messages/{id}: direct messages have no topic or channel', async (t) => {
    const dm = await w.dm(ann, [bob], 'hello');
    const topic = await w.edit(ann, dm, { topic: 'a topic' });
    t.equal(topic.body.msg, 'Direct messages cannot have topics.', 'no topic');
    const stream = await w.edit(ann, dm, { stream_id: w.realm.streamByName('general')!.id });
    t.equal(stream.body.msg, 'Direct messages cannot be moved to channels.', 'no channel');
  });

  t.test('PATCH /messages/{id}: the wildcard-mention rules of sending apply to edits', async (t) => {
    const crowd = [];
    for (let i = 0; i < 16; i++) crowd.push(await w.user(`Crowd${i}`));
    const id = await w.send(ann, 'general', 'crowded', 'quiet');
    const everyone = await w.edit(ann, id, { content: 'hey @**all**' });
    t.equal(everyone.body.code, 'STREAM_WILDCARD_MENTION_NOT_ALLOWED', 'a member may not mention everyone in a big channel');
    t.equal(everyone.body.msg, 'You do not have permission to use channel wildcard mentions in this channel.', 'reference message');
    const adminMsg = await w.send(admin, 'general', 'crowded', 'quiet too');
    t.equal((await w.edit(admin, adminMsg, { content: 'hey @**all**' })).status, 200, 'an administrator may (can_mention_many_users_group)');

    for (const u of crowd) await w.send(u, 'general', 'busy topic', 'me too');
    const mine = await w.send(ann, 'general', 'busy topic', 'and me');
    const topicAll = await w.edit(ann, mine, { content: 'hey @**topic**' });
    t.equal(topicAll.body.code, 'TOPIC_WILDCARD_MENTION_NOT_ALLOWED', 'nor the topic in a topic with many participants');
    t.equal(w.stored(mine)!.content, 'and me', 'the refused edit changed nothing');
  });
});
