import t from 'tap';
import { convergenceHarness } from '../../helpers/convergence.js';
import { restart } from '../users/restart.js';
import { startWorld, type Person } from '../streams/world.js';

const bad = (msg: string) => ({ result: 'error', msg, code: 'BAD_REQUEST' });

t.test('POST and DELETE /users/me/muted_users/{muted_user_id}', async (t) => {
  const w = await startWorld(t);
  const { hamlet, othello, polonius, bot, admin } = w.root;
  const muted = async (who: Person) => (await w.as(who)('POST', '/register', { params: { fetch_event_types: ['muted_users'] } })).body.muted_users;

  t.test('muting and unmuting', async (t) => {
    const before = Math.floor(Date.now() / 1000);
    t.same((await w.as(hamlet)('POST', `/users/me/muted_users/${othello.userId}`)).body, { result: 'success', msg: '' }, 'muted');
    const list = await muted(hamlet);
    t.equal(list.length, 1, 'one muted user');
    t.equal(list[0].id, othello.userId, 'othello');
    t.ok(list[0].timestamp >= before && list[0].timestamp <= Math.floor(Date.now() / 1000), 'with the time of muting');
    t.same(await muted(othello), [], 'muting is personal');
    t.equal((await w.as(hamlet)('POST', `/users/me/muted_users/${bot.userId}`)).status, 200, 'a bot may be muted');
    t.same((await muted(hamlet)).map((m: { id: number }) => m.id), [othello.userId, bot.userId], 'in the order muted');
    t.equal((await w.as(hamlet)('DELETE', `/users/me/muted_users/${bot.userId}`)).status, 200, 'unmuted');
    t.same((await muted(hamlet)).map((m: { id: number }) => m.id), [othello.userId], 'gone from the list');
  });

  t.test('errors', async (t) => {
    t.same((await w.as(hamlet)('POST', `/users/me/muted_users/${hamlet.userId}`)).body, bad('Cannot mute self'), 'oneself');
    t.same((await w.as(hamlet)('POST', `/users/me/muted_users/${othello.userId}`)).body, bad('User already muted'), 'twice');
    t.same((await w.as(hamlet)('POST', '/users/me/muted_users/99999')).body, bad('No such user'), 'an unknown user');
    t.same((await w.as(hamlet)('POST', `/users/me/muted_users/${w.other.othello.userId}`)).body, bad('No such user'), "another realm's user");
    t.same((await w.as(hamlet)('DELETE', `/users/me/muted_users/${admin.userId}`)).body, bad('User is not muted'), 'unmuting someone not muted');
    t.same((await w.as(hamlet)('DELETE', '/users/me/muted_users/99999')).body, bad('No such user'), 'unmuting an unknown user');
    t.equal((await w.as(hamlet)('POST', '/users/me/muted_users/abc')).status, 404, 'the id must be a number: no such path, as in the reference');
    t.same((await muted(hamlet)).map((m: { id: number }) => m.id), [othello.userId], 'nothing changed');
  });

  t.test('guests and bots may mute; a deactivated user may be muted', async (t) => {
    t.equal((await w.as(polonius)('POST', `/users/me/muted_users/${hamlet.userId}`)).status, 200, 'a guest');
    t.equal((await w.as(bot)('POST', `/users/me/muted_users/${othello.userId}`)).status, 200, 'a bot');
    await w.as(admin)('DELETE', `/users/${polonius.userId}`);
    t.equal((await w.as(othello)('POST', `/users/me/muted_users/${polonius.userId}`)).status, 200, 'a deactivated user');
  });

  t.test('mutes survive a restart', async (t) => {
    const list = await muted(hamlet);
    await restart(t, w.ts, async () => undefined);
    t.same(await muted(hamlet), list, 'the same list');
    t.same((await w.as(hamlet)('POST', `/users/me/muted_users/${othello.userId}`)).body, bad('User already muted'), 'still muted');
  });
});

t.test("a muted user's messages reach the muter already read", async (t) => {
  const w = await startWorld(t);
  const { hamlet, othello, admin, polonius } = w.root;
  const send = async (as: Person, params: Record<string, unknown>) => (await w.as(as)('POST', '/messages', { params })).body.id as number;
  const flags = async (who: Person, id: number) => (await w.as(who)('GET', '/messages', { params: { message_ids: [id] } })).body.messages[0].flags as string[];
  const unread = async (who: Person) => (await w.as(who)('POST', '/register', { params: { fetch_event_types: ['message', 'update_message_flags'] } })).body.unread_msgs;

  const early = await send(othello, { type: 'stream', to: 'general', topic: 'before', content: 'hello @**hamlet**' });
  const earlyDm = await send(othello, { type: 'direct', to: [hamlet.userId], content: 'psst' });
  const other = await send(admin, { type: 'stream', to: 'general', topic: 'before', content: 'from admin' });
  const reg = await w.as(hamlet)('POST', '/register', { params: { event_types: ['message', 'update_message_flags', 'muted_users'] } });
  t.equal((await unread(hamlet)).count, 3, 'three unread before muting');

  t.test('muting marks what the muted user sent read, and tells the muter', async (t) => {
    await w.as(hamlet)('POST', `/users/me/muted_users/${othello.userId}`);
    const u = await unread(hamlet);
    t.equal(u.count, 1, "only the administrator's message is left unread");
    t.same(u.streams.flatMap((b: { unread_message_ids: number[] }) => b.unread_message_ids), [other], 'the right one');
    t.same(u.mentions, [], 'the mention is read too');
    const got = await w.as(hamlet)('GET', '/events', { params: { queue_id: reg.body.queue_id, last_event_id: -1, dont_block: true } });
    const types = got.body.events.map((e: { type: string }) => e.type);
    t.same(types, ['update_message_flags', 'muted_users'], 'the read flags, then the list');
    t.same(got.body.events[0].messages.sort(), [early, earlyDm].sort(), 'for the muted user\'s messages');
    t.equal(got.body.events[0].flag, 'read', 'marked read');
    t.same(got.body.events[1].muted_users.map((m: { id: number }) => m.id), [othello.userId], 'the list');
  });

  t.test('new messages from the muted user arrive read, for the muter only', async (t) => {
    const id = await send(othello, { type: 'stream', to: 'general', topic: 'after', content: 'still talking' });
    const dm = await send(othello, { type: 'direct', to: [hamlet.userId, polonius.userId], content: 'group chat' });
    t.ok((await flags(hamlet, id)).includes('read'), 'read for the muter');
    t.notOk((await flags(admin, id)).includes('read'), 'unread for others');
    t.ok((await flags(hamlet, dm)).includes('read'), 'a direct message too');
    t.notOk((await flags(polonius, dm)).includes('read'), 'but not for the other recipient');
    const got = await w.as(hamlet)('GET', '/events', { params: { queue_id: reg.body.queue_id, last_event_id: -1, dont_block: true } });
    const event = got.body.events.find((e: { type: string; message?: { id: number } }) => e.type === 'message' && e.message?.id === id);
    t.ok(event.flags.includes('read'), 'the message event says read');
    t.equal((await unread(hamlet)).count, 1, 'the muter\'s unread count did not grow');
  });

  t.test('unmuting: new messages are unread again; earlier ones stay read', async (t) => {
    await w.as(hamlet)('DELETE', `/users/me/muted_users/${othello.userId}`);
    const id = await send(othello, { type: 'stream', to: 'general', topic: 'after', content: 'heard again' });
    t.notOk((await flags(hamlet, id)).includes('read'), 'unread');
    t.ok((await flags(hamlet, early)).includes('read'), 'the earlier one stays read');
  });
});

t.test('muting converges with a fresh snapshot', async (t) => {
  const w = await startWorld(t);
  const { hamlet, othello, admin } = w.root;
  const { ok, converges } = convergenceHarness(t, w.ts);
  await ok(othello, 'POST', '/messages', { type: 'stream', to: 'general', topic: 'x', content: 'one @**hamlet**' });
  await ok(othello, 'POST', '/messages', { type: 'direct', to: [hamlet.userId], content: 'two' });
  const options = { sections: ['muted_users'] };
  await converges('mute', () => ok(hamlet, 'POST', `/users/me/muted_users/${othello.userId}`), [hamlet, othello], options);
  await converges('a send from the muted user', () => ok(othello, 'POST', '/messages', { type: 'stream', to: 'general', topic: 'x', content: 'three @**hamlet**' }), [hamlet, othello, admin], options);
  await converges('unmute', () => ok(hamlet, 'DELETE', `/users/me/muted_users/${othello.userId}`), [hamlet], options);
});
