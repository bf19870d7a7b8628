import t from 'tap';
import { ROLE, startWorld } from './edit-world.js';

t.test('PATCH /messages/{id}: who may move messages, and when', async (t) => {
  const w = await startWorld(t);
  const member = await w.user('Mia');
  const moderator = await w.user('Mod', ROLE.moderator);
  const admin = await w.user('Ada', ROLE.administrator);
  const guest = await w.user('Gus', ROLE.guest);
  await w.subscribe(w.owner, 'general');
  const other = await w.channel(w.owner, 'other', { members: [member, moderator, admin, guest] });
  const quiet = { send_notification_to_new_thread: false };
  const group = (name: string) => ({ new: w.groupId(name) });

  t.test('PATCH /messages/{id}: can_move_messages_between_topics_group', async (t) => {
    const id = await w.send(member, 'general', 'topics', 'hello');
    t.equal((await w.edit(guest, id, { topic: 'by a guest', ...quiet })).status, 200, 'by default everyone, guests included, may rename topics');
    await w.setRealm({ can_move_messages_between_topics_group: group('role:administrators') });
    for (const user of [member, moderator]) {
      const res = await w.edit(user, id, { topic: `by ${user.fullName}`, ...quiet });
      t.equal(res.body.msg, "You don't have permission to edit this message", `${user.fullName} is refused once only administrators may`);
    }
    t.equal((await w.edit(admin, id, { topic: 'by an admin', ...quiet })).status, 200, 'an administrator may');
    await w.setRealm({ can_move_messages_between_topics_group: group('role:everyone') });
  });

  t.test('PATCH /messages/{id}: move_messages_within_stream_limit_seconds; moderators and administrators are exempt', async (t) => {
    await w.setRealm({ move_messages_within_stream_limit_seconds: 3600 });
    const id = await w.send(member, 'general', 'old topic', 'old');
    await w.age(id, 4000);
    const late = await w.edit(member, id, { topic: 'renamed late', ...quiet });
    t.equal(late.body.msg, "The time limit for editing this message's topic has passed.", 'a member is past the limit');
    t.equal(w.stored(id)!.topic, 'old topic', 'nothing moved');
    t.equal((await w.edit(moderator, id, { topic: 'renamed by mod', ...quiet })).status, 200, 'a moderator is exempt');
    t.equal((await w.edit(admin, id, { topic: 'renamed by admin', ...quiet })).status, 200, 'an administrator is exempt');
    await w.setRealm({ move_messages_within_stream_limit_seconds: 'unlimited' });
    t.equal((await w.edit(member, id, { topic: 'renamed, no limit', ...quiet })).status, 200, 'no limit, no restriction');
  });

  t.test('PATCH /messages/{id}: can_move_messages_between_channels_group', async (t) => {
    const id = await w.send(member, 'general', 'channels', 'to move');
    const byGuest = await w.edit(guest, id, { stream_id: other.id, ...quiet });
    t.equal(byGuest.body.msg, "You don't have permission to move this message", 'guests may not (role:members by default)');
    await w.setRealm({ can_move_messages_between_channels_group: group('role:moderators') });
    const byMember = await w.edit(member, id, { stream_id: other.id, ...quiet });
    t.equal(byMember.body.msg, "You don't have permission to move this message", 'a member is refused once only moderators may');
    t.equal((await w.edit(moderator, id, { stream_id: other.id, ...quiet })).status, 200, 'a moderator may');
    t.equal(w.stored(id)!.streamId, other.id, 'the message is in the other channel');
    await w.setRealm({ can_move_messages_between_channels_group: group('role:members') });
  });

  t.test('PATCH /messages/{id}: move_messages_between_streams_limit_seconds', async (t) => {
    await w.setRealm({ move_messages_between_streams_limit_seconds: 3600 });
    const id = await w.send(member, 'general', 'aged', 'old');
    await w.age(id, 4000);
    const late = await w.edit(member, id, { stream_id: other.id, ...quiet });
    t.equal(late.body.msg, "The time limit for editing this message's channel has passed", 'a member is past the limit');
    t.equal((await w.edit(moderator, id, { stream_id: other.id, ...quiet })).status, 200, 'a moderator is exempt');
    await w.setRealm({ move_messages_between_streams_limit_seconds: 'unlimited' });
  });

  t.test('PATCH /messages/{id}: the destination must be a channel the mover can read and post to', async (t) => {
    const secret = await w.channel(w.owner, 'secret', { inviteOnly: true });
    const id = await w.send(member, 'general', 'where to', 'somewhere');
    for (const [streamId, what] of [[secret.id, 'a private channel the mover is not in'], [987654, 'a channel that does not exist']] as const) {
      const res = await w.edit(member, id, { stream_id: streamId, ...quiet });
      t.equal(res.body.msg, 'Invalid channel ID', what);
    }
    const announce = await w.channel(w.owner, 'announce', { members: [member] });
    announce.groups.can_send_message_group = w.groupId('role:administrators');
    const res = await w.edit(member, id, { stream_id: announce.id, ...quiet });
    t.equal(res.body.msg, 'You do not have permission to post in this channel.', 'a channel the mover may not post to');
    t.equal((await w.edit(admin, id, { stream_id: announce.id, ...quiet })).status, 200, 'an administrator, in can_send_message_group, may');
  });

  t.test('PATCH /messages/{id}: messages in an archived channel cannot be changed', async (t) => {
    const id = await w.send(member, 'other', 'frozen', 'text');
    // Actions replace a channel's record rather than change it (a first message sets
    // first_message_id): the current one is the realm's.
    const current = w.realm.streams.get(other.id)!;
    current.isArchived = true;
    const res = await w.edit(member, id, { content: 'new' });
    t.equal(res.body.msg, 'Invalid message(s)', 'the message is out of reach');
    current.isArchived = false;
  });
});
