import t from 'tap';
import { subscribe } from '../streams/world.js';
import { startGroupWorld } from './world.js';

/** Group mentions: rendering, the mentioned flag for every member, can_mention_group. */
t.test('group mentions', async (t) => {
  const w = await startGroupWorld(t);
  const { owner, admin, hamlet, othello, polonius } = w.root;
  const mod = w.moderator;
  // devs holds hamlet directly and, through its subgroup qa, othello.
  const qa = await w.create(owner, 'qa', { members: [othello.userId] });
  const devs = await w.create(owner, 'devs', { members: [hamlet.userId], subgroups: [qa] });
  // The moderator is a member of devs but not subscribed to the channel the mention is sent to.
  await w.ok(owner, 'POST', `/user_groups/${devs}/members`, { add: [mod.userId] });
  await subscribe(w.as(owner), ['builds'], { principals: [owner.userId, admin.userId, hamlet.userId, othello.userId] });

  const send = (p: typeof owner, content: string, to = 'builds') => w.ok(p, 'POST', '/messages', { type: 'stream', to, topic: 'ci', content }).then((b) => b.id as number);
  const message = (p: typeof owner, id: number) => w.ok(p, 'GET', `/messages/${id}`).then((b) => b.message);
  const flags = async (p: typeof owner, id: number): Promise<string[]> => {
    const found = (await w.ok(p, 'GET', '/messages', { anchor: id, num_before: 0, num_after: 0 })).messages as { id: number; flags: string[] }[];
    return found.find((m) => m.id === id)?.flags ?? [];
  };
  const mentionedNarrow = async (p: typeof owner) =>
    ((await w.ok(p, 'GET', '/messages', { anchor: 'newest', num_before: 20, num_after: 0, narrow: [{ operator: 'is', operand: 'mentioned' }] })).messages as { id: number }[]).map((m) => m.id);

  t.test('a mention renders as the reference renders it and reaches every member', async (t) => {
    const id = await send(admin, 'build broken @*devs*');
    t.equal((await message(admin, id)).content, `<p>build broken <span class="user-group-mention" data-user-group-id="${devs}">@devs</span></p>`);
    t.ok((await flags(hamlet, id)).includes('mentioned'), 'a direct member is mentioned');
    t.ok((await flags(othello, id)).includes('mentioned'), 'a member through a subgroup is mentioned');
    t.notOk((await flags(owner, id)).includes('mentioned'), 'a non-member is not');
    t.ok((await mentionedNarrow(othello)).includes(id), 'is:mentioned finds it');
    t.notOk((await mentionedNarrow(mod)).includes(id), 'a member who did not receive the message has nothing');
    const unread = (await w.ok(othello, 'POST', '/register', { fetch_event_types: ['message', 'update_message_flags'] })).unread_msgs;
    t.ok(unread.mentions.includes(id), 'counted among unread mentions');
  });

  t.test('a silent mention renders without notifying anyone', async (t) => {
    const id = await send(admin, 'thanks @_*devs*');
    t.equal((await message(admin, id)).content, `<p>thanks <span class="user-group-mention silent" data-user-group-id="${devs}">devs</span></p>`);
    t.notOk((await flags(hamlet, id)).includes('mentioned'), 'no flag');
  });

  t.test('can_mention_group decides who may mention the group', async (t) => {
    await w.ok(owner, 'PATCH', `/user_groups/${devs}`, { can_mention_group: { new: { direct_members: [], direct_subgroups: [w.system['role:moderators'], qa] } } });
    const refused = await w.fails(hamlet, 'POST', '/messages', { type: 'stream', to: 'builds', topic: 'ci', content: 'hey @*devs*' });
    t.equal(refused.msg, "You are not allowed to mention user group 'devs'.");
    t.equal(refused.code, 'BAD_REQUEST');
    t.ok(await send(hamlet, 'hey @_*devs*'), 'a silent mention needs no permission');
    t.ok(await send(admin, 'hey @*devs*'), 'an administrator is a moderator');
    t.ok(await send(othello, 'hey @*devs*'), 'a member of qa, a subgroup of the setting');
    const id = await send(hamlet, 'nothing yet');
    t.equal((await w.fails(hamlet, 'PATCH', `/messages/${id}`, { content: 'now @*devs*' })).msg, "You are not allowed to mention user group 'devs'.", 'nor by an edit');
    await w.ok(owner, 'PATCH', `/user_groups/${devs}`, { can_mention_group: { new: w.system['role:members'] } });
    t.equal((await w.fails(polonius, 'POST', '/messages', { type: 'stream', to: 'general', topic: 'ci', content: 'hey @*devs*' })).msg, "You are not allowed to mention user group 'devs'.", 'role:members leaves guests out');
    await w.ok(hamlet, 'PATCH', `/messages/${id}`, { content: 'now @*devs*' });
    t.ok((await flags(othello, id)).includes('mentioned'), 'an edit adding the mention sets the flag');
    await w.ok(hamlet, 'PATCH', `/messages/${id}`, { content: 'never mind' });
    t.notOk((await flags(othello, id)).includes('mentioned'), 'and removing it clears it');
    await w.ok(owner, 'PATCH', `/user_groups/${devs}`, { can_mention_group: { new: w.system['role:everyone'] } });
    t.ok(await send(polonius, 'hey @*devs*', 'general'), 'role:everyone: guests too');
  });

  t.test('system groups show their display name and cannot be mentioned', async (t) => {
    const id = await send(admin, 'hi @_*role:moderators*');
    t.equal((await message(admin, id)).content, `<p>hi <span class="user-group-mention silent" data-user-group-id="${w.system['role:moderators']}">Moderators</span></p>`);
    t.equal((await w.fails(owner, 'POST', '/messages', { type: 'stream', to: 'builds', topic: 'ci', content: 'hi @*role:members*' })).msg, "You are not allowed to mention user group 'role:members'.");
  });

  t.test('a deactivated group is mentioned silently', async (t) => {
    const old = await w.create(owner, 'old-crew', { members: [hamlet.userId], can_mention_group: w.system['role:nobody'] });
    await w.ok(owner, 'POST', `/user_groups/${old}/deactivate`);
    const id = await send(admin, 'bye @*old-crew*');
    t.equal((await message(admin, id)).content, `<p>bye <span class="user-group-mention silent" data-user-group-id="${old}">old-crew</span></p>`, 'no permission needed: it notifies nobody');
    t.notOk((await flags(hamlet, id)).includes('mentioned'), 'no flag');
  });

  t.test("another realm's group is not a mention", async (t) => {
    const res = await w.asOther(w.other.owner)('POST', '/messages', { params: { type: 'stream', to: 'general', topic: 'x', content: 'hi @*devs*' } });
    const msg = await w.asOther(w.other.owner)('GET', `/messages/${res.body.id}`);
    t.equal(msg.body.message.content, '<p>hi @<em>devs</em></p>');
  });
});
