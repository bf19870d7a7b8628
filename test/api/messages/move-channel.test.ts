import t from 'tap';
import { ROLE, startWorld, type Emitted } from './edit-world.js';

t.test('PATCH /messages/{id}: moves between channels', async (t) => {
  const w = await startWorld(t);
  const ann = await w.user('Ann');
  const bob = await w.user('Bob');
  const gina = await w.user('Gina', ROLE.guest);
  const dave = await w.user('Dave');
  const erin = await w.user('Erin');
  await w.unsubscribe(dave, 'general');
  await w.unsubscribe(erin, 'general');
  const general = w.realm.streamByName('general')!;
  const dest = await w.channel(ann, 'dest', { members: [bob, dave] });
  const vault = await w.channel(ann, 'vault', { inviteOnly: true, historyPublic: false, members: [erin] });
  const quiet = { send_notification_to_new_thread: false };
  const to = (events: Emitted[], type: string) => events.filter((e) => e.event.type === type).flatMap((e) => e.userIds).sort((a, b) => a - b);
  const flagsOf = async (user: typeof ann, id: number) => (await w.get(user, id)).body.message?.flags;

  t.test('PATCH /messages/{id}: to a public channel, unread state and mentions stay with those who keep the message', async (t) => {
    const id = await w.send(ann, 'general', 'news', 'hi @**Bob**');
    const frank = await w.user('Frank');
    await w.unsubscribe(frank, 'general');
    await w.subscribe(frank, 'dest');
    t.same(await flagsOf(bob, id), ['mentioned'], 'Bob has it unread, with his mention');
    const res = await w.edit(ann, id, { stream_id: dest.id, ...quiet });
    t.equal(res.status, 200, 'moved');
    t.same(await flagsOf(bob, id), ['mentioned'], 'Bob, subscribed to both channels, keeps it unread and mentioned');
    t.same(await flagsOf(dave, id), ['read'], 'Dave, in the new channel since before it was sent, holds it as read');
    const unread = await w.call(dave, 'messages.updateFlags', { messages: [id], op: 'remove', flag: 'read' });
    t.equal(unread.status, 200, 'Dave can mark it unread');
    t.same(await flagsOf(dave, id), [], 'and it is unread for him');
    t.same(await flagsOf(frank, id), ['read', 'historical'], 'Frank, who joined the new channel after it was sent, sees it as history, like the reference');
    t.same(await flagsOf(w.owner, id), ['read', 'historical'], 'the owner, only in the old channel, lost it but can still read it there');
    const got = (await w.get(ann, id)).body.message;
    t.match(got, { stream_id: dest.id, display_recipient: 'dest', subject: 'news' }, 'it reads back in the new channel');
    t.match(got.edit_history, [{ prev_stream: general.id, stream: dest.id, user_id: ann.id }], 'with the channel change in edit_history');
    t.type(got.last_moved_timestamp, 'number', 'and last_moved_timestamp');
  });

  t.test('PATCH /messages/{id}: update_message to both channels; a guest who loses it gets delete_message', async (t) => {
    const id = await w.send(ann, 'general', 'guested', 'hello all');
    await w.edit(ann, id, { stream_id: dest.id, ...quiet });
    const update = w.events.find((e) => e.event.type === 'update_message')!.event;
    t.match(update, { message_id: id, message_ids: [id], stream_id: general.id, new_stream_id: dest.id, orig_subject: 'guested', propagate_mode: 'change_one' }, 'the reference fields of a channel move');
    t.notOk('subject' in update, 'no subject when only the channel changed');
    t.same(to(w.events, 'update_message'), w.ids(w.owner, ann, bob, dave, w.realm.userByEmail('frank@example.com')!), 'update_message to the old and new channels');
    t.same(to(w.events, 'delete_message'), [gina.id], 'the guest, who cannot see the new channel, gets delete_message');
    const del = w.events.find((e) => e.event.type === 'delete_message')!.event;
    t.same(del, { type: 'delete_message', message_ids: [id], message_type: 'stream', stream_id: general.id, topic: 'guested' }, 'in the reference shape');
    t.equal((await w.get(gina, id)).body.msg, 'Invalid message(s)', 'and can no longer read it');
  });

  t.test('PATCH /messages/{id}: to a private channel with protected history', async (t) => {
    const id = await w.send(ann, 'general', 'private now', 'secret-ish');
    await w.edit(ann, id, { stream_id: vault.id, ...quiet });
    const events = [...w.events];
    t.same(await flagsOf(erin, id), ['read'], "the channel's subscribers receive it, as read, as the reference does");
    t.same(await flagsOf(ann, id), [], 'the sender, subscribed, keeps it as it was (unread: sent by an API client)');
    for (const user of [bob, w.owner]) t.equal((await w.get(user, id)).body.msg, 'Invalid message(s)', `${user.fullName} can no longer read it`);
    t.same(to(events, 'delete_message'), w.ids(w.owner, bob, gina), 'everyone who lost it gets delete_message');
    t.same(w.stored(id)!.receivers, w.ids(ann, erin), 'the receivers are recorded on the message');
  });

  t.test('PATCH /messages/{id}: a sender not subscribed to the new channel loses the message too', async (t) => {
    const own = await w.channel(bob, 'bobs place');
    const id = await w.send(ann, 'general', 'by ann', 'mine');
    t.same(await flagsOf(ann, id), [], 'Ann has her message (unread: sent by an API client)');
    await w.edit(bob, id, { stream_id: own.id, ...quiet });
    t.same(await flagsOf(ann, id), ['read', 'historical'], 'Ann, not in the new channel, now sees it as history');
    t.notOk(w.stored(id)!.receivers!.includes(ann.id), 'and is not among its receivers');
  });

  t.test('PATCH /messages/{id}: a whole topic moves, with an edit entry on each message', async (t) => {
    const ids = [await w.send(ann, 'general', 'bulk', 'one'), await w.send(bob, 'general', 'bulk', 'two')];
    const res = await w.edit(bob, ids[0], { stream_id: dest.id, topic: 'bulk moved', propagate_mode: 'change_all', ...quiet });
    t.equal(res.status, 200, 'moved');
    const events = [...w.events];
    for (const id of ids) {
      const got = (await w.get(dave, id)).body.message;
      t.match(got, { stream_id: dest.id, subject: 'bulk moved' }, `message ${id} is in the new place`);
      t.match(got.edit_history, [{ prev_stream: general.id, stream: dest.id, prev_topic: 'bulk', topic: 'bulk moved' }], 'with one entry for both changes');
    }
    t.same(events.find((e) => e.event.type === 'update_message')!.event.message_ids, ids, 'one event lists both');
  });
});
