import t from 'tap';
import { ROLE, startWorld } from './edit-world.js';

t.test('DELETE /messages/{id}: who may delete what', async (t) => {
  const w = await startWorld(t);
  const ann = await w.user('Ann');
  const bob = await w.user('Bob');
  const moderator = await w.user('Mod', ROLE.moderator);
  const admin = await w.user('Ada', ROLE.administrator);
  const bot = await w.user('Annbot', ROLE.member, { isBot: true, botOwnerId: ann.id });
  await w.subscribe(bot, 'general');
  const del = (user: typeof ann, id: number) => w.call(user, 'messages.delete', { message_id: id });
  const denied = { result: 'error', msg: "You don't have permission to delete this message", code: 'BAD_REQUEST' };
  const group = (name: string) => ({ new: w.groupId(name) });

  t.test('DELETE /messages/{id}: a member deletes their own recent message, not others\'', async (t) => {
    const own = await w.send(ann, 'general', 'del', 'mine');
    t.equal((await del(ann, own)).status, 200, 'their own');
    t.equal(w.stored(own), undefined, 'it is gone');
    t.equal((await w.get(bob, own)).body.msg, 'Invalid message(s)', 'reading it is "Invalid message(s)"');
    t.equal((await del(ann, own)).body.msg, 'Invalid message(s)', 'and so is deleting it again');
    const bobs = await w.send(bob, 'general', 'del', 'bob');
    t.same((await del(ann, bobs)).body, denied, "not someone else's");
    t.same((await del(moderator, bobs)).body, denied, 'nor may a moderator, by default');
  });

  t.test('DELETE /messages/{id}: message_content_delete_limit_seconds binds those who delete their own', async (t) => {
    const old = await w.send(ann, 'general', 'del', 'old');
    await w.age(old, 700);
    t.equal((await del(ann, old)).body.msg, 'The time limit for deleting this message has passed', 'past the default 600 seconds');
    await w.setRealm({ message_content_delete_limit_seconds: 'unlimited' });
    t.equal((await del(ann, old)).status, 200, 'with no limit it goes');
    await w.setRealm({ message_content_delete_limit_seconds: 600 });
  });

  t.test('DELETE /messages/{id}: can_delete_any_message_group deletes anything, at any age', async (t) => {
    const old = await w.send(bob, 'general', 'del', 'ancient');
    await w.age(old, 100_000);
    t.equal((await del(admin, old)).status, 200, 'an administrator, by default');
    await w.setRealm({ can_delete_any_message_group: group('role:moderators') });
    const another = await w.send(bob, 'general', 'del', 'another');
    t.equal((await del(moderator, another)).status, 200, 'a moderator once the group says so');
    await w.setRealm({ can_delete_any_message_group: group('role:administrators') });
  });

  t.test('DELETE /messages/{id}: can_delete_own_message_group', async (t) => {
    await w.setRealm({ can_delete_own_message_group: group('role:administrators') });
    const own = await w.send(ann, 'general', 'del', 'kept');
    t.same((await del(ann, own)).body, denied, 'a member outside the group may not delete their own');
    await w.setRealm({ can_delete_own_message_group: group('role:everyone') });
    t.equal((await del(ann, own)).status, 200, 'back in the group, they may');
  });

  t.test("DELETE /messages/{id}: a bot's owner may delete the bot's messages", async (t) => {
    const byBot = await w.send(bot, 'general', 'del', 'beep');
    t.same((await del(bob, byBot)).body, denied, 'not another member');
    t.equal((await del(ann, byBot)).status, 200, 'the owner may');
  });

  t.test('DELETE /messages/{id}: messages one cannot read are "Invalid message(s)"', async (t) => {
    const dm = await w.dm(ann, [bob], 'between us');
    t.equal((await del(admin, dm)).body.msg, 'Invalid message(s)', "even an administrator cannot reach others' DMs");
    t.equal((await del(ann, 99_999_999)).body.msg, 'Invalid message(s)', 'a message that does not exist');
    t.equal((await del(bob, dm)).body.msg, "You don't have permission to delete this message", 'the other participant did not send it');
    t.equal((await del(ann, dm)).status, 200, 'the sender deletes their DM');
  });
});
