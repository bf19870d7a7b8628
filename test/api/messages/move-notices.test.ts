import t from 'tap';
import { topicMessageIds } from '../../../src/api/messages/edit-rules.js';
import type { StreamRecord } from '../../../src/model/types.js';
import { startWorld } from './edit-world.js';

t.test('PATCH /messages/{id}: notices of moved messages', async (t) => {
  const w = await startWorld(t);
  const ann = await w.user('Ann');
  const bob = await w.user('Bob');
  const general = w.realm.streamByName('general')!;
  const dest = await w.channel(ann, 'dest', { members: [bob] });
  const messages = (stream: StreamRecord, topic: string) => topicMessageIds(w.shard, w.realm, stream.id, topic).map((id) => w.stored(id)!);
  const lastIn = (stream: StreamRecord, topic: string) => messages(stream, topic).at(-1)!;
  const annMention = `@_**Ann|${ann.id}**`;
  const thread = async (topic: string, n: number) => {
    const ids: number[] = [];
    for (let i = 0; i < n; i++) ids.push(await w.send(bob, 'general', topic, `message ${i}`));
    return ids;
  };

  t.test('PATCH /messages/{id}: a whole topic: "moved here" in the new topic by default, nothing in the old', async (t) => {
    const [id] = await thread('first', 2);
    await w.edit(ann, id, { topic: 'second', propagate_mode: 'change_all' });
    const events = [...w.events];
    const notice = lastIn(general, 'second');
    t.equal(notice.content, `This topic was moved here from #**general>first** by ${annMention}.`, 'the new-topic notice');
    const bot = w.realm.users.get(notice.senderId)!;
    t.match(bot, { email: 'notification-bot@zulip.com', fullName: 'Notification Bot', isBot: true }, 'posted by the Notification Bot');
    t.same(messages(general, 'first'), [], 'send_notification_to_old_thread is off by default');
    t.same((await w.get(ann, notice.id)).body.message.flags, ['read'], 'read for the user who moved the messages');
    t.same((await w.get(bob, notice.id)).body.message.flags, [], 'unread for the others');
    const event = events.find((e) => e.event.type === 'message');
    t.same((event?.event.flags as Record<number, string[]>)[ann.id], ['read'], 'the message event says read for the mover');

    const [other] = await thread('third', 1);
    await w.edit(ann, other, { topic: 'fourth' });
    t.equal(lastIn(general, 'fourth').senderId, bot.id, 'the same bot posts later notices');
    t.equal([...w.realm.users.values()].filter((u) => u.email === 'notification-bot@zulip.com').length, 1, 'it was created once');
  });

  t.test('PATCH /messages/{id}: send_notification_to_old_thread and to_new_thread', async (t) => {
    const ids = await thread('old place', 2);
    await w.edit(ann, ids[0], { topic: 'new place', propagate_mode: 'change_all', send_notification_to_old_thread: true, send_notification_to_new_thread: false });
    t.equal(lastIn(general, 'old place').content, `This topic was moved to #**general>new place** by ${annMention}.`, 'the old-topic notice');
    t.same(messages(general, 'new place').map((m) => m.id), ids, 'no notice in the new topic');
  });

  t.test('PATCH /messages/{id}: one message of several', async (t) => {
    const ids = await thread('several', 3);
    await w.edit(ann, ids[1], { topic: 'single', send_notification_to_old_thread: true });
    const url = `${w.shard.realmUrl(w.realm.realm)}/#narrow/channel/${general.id}-general/topic/single/near/${ids[1]}`;
    t.equal(lastIn(general, 'single').content, `[A message](${url}) was moved here from #**general>several** by ${annMention}.`, 'new topic: a link to the message');
    t.equal(lastIn(general, 'several').content, `A message was moved from this topic to #**general>single** by ${annMention}.`, 'old topic');
  });

  t.test('PATCH /messages/{id}: part of a topic, with change_later', async (t) => {
    const ids = await thread('partial', 3);
    await w.edit(ann, ids[1], { topic: 'the rest', propagate_mode: 'change_later', send_notification_to_old_thread: true });
    t.equal(lastIn(general, 'the rest').content, `2 messages were moved here from #**general>partial** by ${annMention}.`, 'new topic: the count');
    t.equal(lastIn(general, 'partial').content, `2 messages were moved from this topic to #**general>the rest** by ${annMention}.`, 'old topic: the count');
  });

  t.test('PATCH /messages/{id}: into a topic that already has messages', async (t) => {
    await thread('existing', 1);
    const ids = await thread('joining', 2);
    await w.edit(ann, ids[0], { topic: 'existing', propagate_mode: 'change_all' });
    t.equal(lastIn(general, 'existing').content, `2 messages were moved here from #**general>joining** by ${annMention}.`, 'not "this topic was moved here"');
  });

  t.test('PATCH /messages/{id}: to another channel, and names that need a plain link', async (t) => {
    const ids = await thread('cross', 1);
    await w.edit(ann, ids[0], { stream_id: dest.id, propagate_mode: 'change_all', send_notification_to_old_thread: true });
    t.equal(lastIn(dest, 'cross').content, `This topic was moved here from #**general>cross** by ${annMention}.`, 'the new channel gets the notice');
    t.equal(lastIn(general, 'cross').content, `This topic was moved to #**dest>cross** by ${annMention}.`, 'and the old one');

    const odd = await thread('a>b (1.0)', 1);
    await w.edit(ann, odd[0], { topic: 'plain', propagate_mode: 'change_all' });
    t.equal(lastIn(general, 'plain').content, `This topic was moved here from [#general > a&gt;b (1.0)](#narrow/channel/${general.id}-general/topic/a.3Eb.20.281.2E0.29) by ${annMention}.`, 'a topic with > gets a Markdown link');
  });
});
