import t from 'tap';
import type { Test } from 'tap';
import { listen } from './queues.js';
import { startWorld, streamId, subscribe, type Person } from './world.js';

t.test('PATCH /streams/{stream_id}', async (t) => {
  const w = await startWorld(t);
  const { owner, admin, hamlet, othello, polonius } = w.root;
  await subscribe(w.as(othello), ['lounge']);
  await subscribe(w.as(hamlet), ['plans'], { invite_only: true });
  const lounge = await streamId(w.as(owner), 'lounge');
  const plans = await streamId(w.as(owner), 'plans');
  const patch = (who: Person, id: number, params: Record<string, unknown>) => w.as(who)('PATCH', `/streams/${id}`, { params });
  const stream = async (id: number) => (await w.as(owner)('GET', `/streams/${id}`)).body.stream;
  const error = (t: Test, res: { status: number; body: any }, msg: string, code = 'BAD_REQUEST') => {
    t.equal(res.status, 400, `refused: ${msg}`);
    t.match(res.body, { result: 'error', msg, code }, msg);
  };

  t.test('who may administer a channel', async (t) => {
    error(t, await patch(hamlet, lounge, { description: 'x' }), 'You do not have permission to administer this channel.');
    error(t, await patch(polonius, lounge, { description: 'x' }), 'Invalid channel ID');
    error(t, await patch(othello, plans, { description: 'x' }), 'Invalid channel ID');
    error(t, await patch(othello, 9999, { description: 'x' }), 'Invalid channel ID');
    t.equal((await patch(othello, lounge, { description: 'by its creator' })).status, 200, 'its creator administers it');
    t.equal((await patch(admin, lounge, { description: 'by an administrator' })).status, 200, 'administrators administer every channel');
    t.equal((await patch(admin, plans, { description: 'secret plans' })).status, 200, 'even private ones they are not in');
    const other = await w.asOther(w.other.owner)('PATCH', `/streams/${lounge}`, { params: { description: 'x' } });
    t.equal(other.body.msg, 'Invalid channel ID', "another realm's owner cannot reach it");
  });

  t.test('renaming', async (t) => {
    const ohq = await listen(w.as(othello));
    const pq = await listen(w.as(polonius));
    t.equal((await patch(othello, lounge, { new_name: '  Lounge  ' })).status, 200, 'renamed, stripped');
    t.equal((await stream(lounge)).name, 'Lounge', 'the new name');
    t.same(await ohq.drain(t), [{ type: 'stream', op: 'update', stream_id: lounge, name: 'lounge', property: 'name', value: 'Lounge' }], 'the event names the old name');
    t.same(await pq.drain(t), [], 'a guest who cannot see the channel hears nothing');
    t.equal((await patch(othello, lounge, { new_name: 'LOUNGE' })).status, 200, 'a change of case is allowed');
    error(t, await patch(othello, lounge, { new_name: 'LOUNGE' }), 'Channel already has that name.');
    error(t, await patch(othello, lounge, { new_name: 'General' }), 'Channel name already in use.');
    error(t, await patch(admin, lounge, { new_name: 'plans' }), 'Channel name already in use.');
    error(t, await patch(othello, lounge, { new_name: '   ' }), "Channel name can't be empty.");
    error(t, await patch(othello, lounge, { new_name: 'x'.repeat(61) }), 'Channel name too long (limit: 60 characters).');
    error(t, await patch(othello, lounge, { new_name: 'bad\u0000name' }), 'Invalid character in channel name, at position 4.');
    await patch(othello, lounge, { new_name: 'lounge' });
  });

  t.test('a private channel keeps its name from those who cannot see it', async (t) => {
    const oq = await listen(w.as(othello));
    const pq = await listen(w.as(polonius));
    const aq = await listen(w.as(admin));
    t.equal((await patch(hamlet, plans, { new_name: 'masterplan', description: 'world domination' })).status, 200, 'its creator renames it');
    t.same(await oq.drain(t), [], 'a member outside it hears nothing');
    t.same(await pq.drain(t), [], 'nor does a guest');
    const seen = await aq.drain(t);
    t.same(seen.map((e) => e.property), ['description', 'name'], 'an administrator hears both changes, description first');
    const list = await w.as(othello)('GET', '/streams', { params: { include_all: true } });
    t.notOk(JSON.stringify(list.body).includes('masterplan'), 'GET /streams does not show it to others');
    await patch(hamlet, plans, { new_name: 'plans' });
  });

  t.test('descriptions', async (t) => {
    const q = await listen(w.as(hamlet));
    t.equal((await patch(othello, lounge, { description: 'Talk about **anything**\nat all' })).status, 200, 'changed');
    const s = await stream(lounge);
    t.equal(s.description, 'Talk about **anything** at all', 'on one line');
    t.equal(s.rendered_description, '<p>Talk about <strong>anything</strong> at all</p>', 'rendered');
    t.same(await q.drain(t), [{ type: 'stream', op: 'update', stream_id: lounge, name: 'lounge', property: 'description', value: s.description, rendered_description: s.rendered_description }], 'with its rendering');
    const long = await patch(othello, lounge, { description: 'x'.repeat(1025) });
    error(t, long, 'description is too long (limit: 1024 characters)', 'REQUEST_VARIABLE_INVALID');
  });

  t.test('message retention is for owners', async (t) => {
    error(t, await patch(admin, lounge, { message_retention_days: 30 }), 'Must be an organization owner', 'UNAUTHORIZED_PRINCIPAL');
    error(t, await patch(owner, lounge, { message_retention_days: 0 }), "Bad value for 'message_retention_days': 0", 'REQUEST_VARIABLE_INVALID');
    const q = await listen(w.as(hamlet));
    t.equal((await patch(owner, lounge, { message_retention_days: 30 })).status, 200, 'an owner sets it');
    t.equal((await stream(lounge)).message_retention_days, 30, 'stored');
    t.equal((await patch(owner, lounge, { message_retention_days: 'unlimited' })).status, 200, 'unlimited');
    t.equal((await stream(lounge)).message_retention_days, -1, 'as -1');
    t.same((await q.drain(t)).map((e) => e.value), [30, -1], 'events with the new values');
  });

  t.test('default channels are for administrators', async (t) => {
    error(t, await patch(othello, lounge, { is_default_stream: true }), 'Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL');
    error(t, await patch(admin, plans, { is_default_stream: true }), 'A default channel cannot be private.');
    const hq = await listen(w.as(hamlet));
    const pq = await listen(w.as(polonius));
    t.equal((await patch(admin, lounge, { is_default_stream: true })).status, 200, 'made default');
    const defaults = (await hq.drain(t)).find((e) => e.type === 'default_streams');
    t.ok(defaults?.default_streams.includes(lounge), 'members hear the new list');
    t.same(await pq.drain(t), [], 'guests, who see no default channels, hear nothing');
    const list = await w.as(admin)('GET', '/streams', { params: { include_default: true } });
    t.equal(list.body.streams.find((s: { stream_id: number }) => s.stream_id === lounge).is_default, true, 'GET /streams says so');
    error(t, await patch(othello, lounge, { is_private: true }), 'A default channel cannot be private.');
    t.equal((await patch(admin, lounge, { is_default_stream: false })).status, 200, 'and not default again');
  });

  t.test('privacy', async (t) => {
    error(t, await patch(othello, lounge, { history_public_to_subscribers: false }), 'Invalid parameters');
    error(t, await patch(othello, lounge, { is_web_public: true, is_private: true }), 'Invalid parameters');
    error(t, await patch(owner, lounge, { is_web_public: true }), 'Web-public channels are not enabled.');
    error(t, await patch(admin, plans, { is_private: false }), 'Channel content access is required.');

    const hq = await listen(w.as(hamlet));
    const oq = await listen(w.as(othello));
    const pq = await listen(w.as(polonius));
    t.equal((await patch(othello, lounge, { is_private: true })).status, 200, 'its creator makes it private');
    t.match(await stream(lounge), { invite_only: true, history_public_to_subscribers: false }, 'private, with protected history by default');
    t.same(await hq.drain(t), [{ type: 'stream', op: 'delete', streams: [{ stream_id: lounge }], stream_ids: [lounge] }], 'a member outside it loses it');
    t.same(await oq.drain(t), [{ type: 'stream', op: 'update', stream_id: lounge, name: 'lounge', property: 'invite_only', value: true, history_public_to_subscribers: false, is_web_public: false }], 'its subscriber hears of the change');
    t.same(await pq.drain(t), [], 'a guest never heard of it');

    t.equal((await patch(othello, lounge, { is_private: false })).status, 200, 'and public again');
    const back = await hq.drain(t);
    t.same(back.map((e) => `${e.type}/${e.op}`), ['stream/create', 'subscription/peer_add'], 'the member gets it back, with its subscribers');
    t.same(back[1].user_ids, [othello.userId], 'who they are');
    t.match(back[0].streams[0], { stream_id: lounge, invite_only: false, history_public_to_subscribers: true }, 'as it now is');
    t.same(await pq.drain(t), [], 'still nothing for the guest');
  });

  t.test('permission group settings', async (t) => {
    const admins = (await stream(lounge)).can_remove_subscribers_group as number;
    const q = await listen(w.as(hamlet));
    t.equal((await patch(othello, lounge, { can_send_message_group: { new: admins } })).status, 200, 'posting limited to administrators');
    t.same((await q.drain(t)).map((e) => [e.property, e.value]), [['can_send_message_group', admins], ['stream_post_policy', 2]], 'with the legacy policy');
    t.match(await stream(lounge), { can_send_message_group: admins, stream_post_policy: 2, is_announcement_only: true }, 'stored');
    const send = await w.as(hamlet)('POST', '/messages', { params: { type: 'stream', to: 'lounge', topic: 't', content: 'hi' } });
    t.equal(send.body.msg, "Not authorized to send to channel 'lounge'", 'and enforced');

    t.equal((await patch(othello, lounge, { can_send_message_group: { new: admins } })).status, 200, 'the same value again');
    t.same(await q.drain(t), [], 'changes nothing');
    error(t, await patch(othello, lounge, { can_send_message_group: { new: admins + 1, old: admins + 2 } }), "'old' value does not match the expected value.");
    t.equal((await patch(othello, lounge, { can_remove_subscribers_group: { new: { direct_members: [hamlet.userId], direct_subgroups: [] }, old: admins } })).status, 200, 'a matching old value');
    t.same((await stream(lounge)).can_remove_subscribers_group, { direct_members: [hamlet.userId], direct_subgroups: [] }, 'an anonymous group');
    error(t, await patch(othello, lounge, { can_add_subscribers_group: { new: 99999 } }), 'Invalid user group');
    const everyoneId = (await w.as(owner)('POST', '/register', { params: { fetch_event_types: ['realm_user_groups'] } })).body.realm_user_groups.find((g: { name: string }) => g.name === 'role:everyone').id;
    error(t, await patch(othello, lounge, { can_subscribe_group: { new: everyoneId } }), "'can_subscribe_group' setting cannot be set to 'role:everyone' group.");
    error(t, await patch(othello, lounge, { can_subscribe_group: 5 }), 'can_subscribe_group is not a dict', 'REQUEST_VARIABLE_INVALID');
    error(t, await patch(othello, lounge, { can_subscribe_group: { old: 5 } }), 'can_subscribe_group is not a valid group setting update', 'REQUEST_VARIABLE_INVALID');
    error(t, await patch(admin, plans, { can_subscribe_group: { new: admins } }), 'Channel content access is required.');
    t.equal((await patch(admin, plans, { can_send_message_group: { new: admins } })).status, 200, 'settings that need only metadata access do not');
  });

  t.test('channel administration through a group', async (t) => {
    const oq = await listen(w.as(othello));
    const group = { direct_members: [hamlet.userId, othello.userId], direct_subgroups: [] };
    t.equal((await patch(hamlet, plans, { can_administer_channel_group: { new: group } })).status, 200, 'othello may administer plans');
    const got = await oq.drain(t);
    t.same(got.map((e) => `${e.type}/${e.op}`), ['stream/create', 'subscription/peer_add'], 'and now sees it, with its subscribers');
    t.equal((await patch(othello, plans, { description: 'othello was here' })).status, 200, 'and administers it');
    error(t, await patch(othello, plans, { can_subscribe_group: { new: 9 } }), 'Channel content access is required.');
    t.equal((await patch(hamlet, plans, { can_administer_channel_group: { new: { direct_members: [hamlet.userId], direct_subgroups: [] } } })).status, 200, 'taken back');
    t.same((await oq.drain(t)).map((e) => `${e.type}/${e.op}`), ['stream/update', 'stream/delete'], 'he hears of his description, then loses the channel');
    error(t, await patch(othello, plans, { description: 'again' }), 'Invalid channel ID');
  });

  t.test('removed parameters are reported as ignored', async (t) => {
    const res = await patch(othello, lounge, { stream_post_policy: 1, is_announcement_only: false });
    t.equal(res.status, 200, 'accepted');
    t.same(res.body.ignored_parameters_unsupported, ['stream_post_policy', 'is_announcement_only'], 'ignored');
  });
});

t.test('changing privacy needs the realm permission to create that kind of channel', async (t) => {
  const w = await startWorld(t, { groupSettings: { can_create_private_channel_group: 'role:administrators' } });
  await subscribe(w.as(w.root.hamlet), ['lounge']);
  const lounge = await streamId(w.as(w.root.owner), 'lounge');
  const res = await w.as(w.root.hamlet)('PATCH', `/streams/${lounge}`, { params: { is_private: true } });
  t.match(res.body, { result: 'error', msg: 'Insufficient permission' }, 'a member may not make a channel private');
  const ok = await w.as(w.root.admin)('PATCH', `/streams/${lounge}`, { params: { is_private: true } });
  t.equal(ok.status, 200, 'an administrator may');
});

t.test('web-public channels, where the realm allows them', async (t) => {
  const w = await startWorld(t, { settings: { enable_spectator_access: true } });
  const { owner, hamlet, polonius } = w.root;
  await subscribe(w.as(hamlet), ['lounge']);
  const lounge = await streamId(w.as(owner), 'lounge');
  const res = await w.as(hamlet)('PATCH', `/streams/${lounge}`, { params: { is_web_public: true } });
  t.match(res.body, { msg: 'Insufficient permission' }, 'members may not make channels web-public by default');
  const pq = await listen(w.as(polonius));
  t.equal((await w.as(owner)('PATCH', `/streams/${lounge}`, { params: { is_web_public: true } })).status, 200, 'the owner may');
  t.same((await pq.drain(t)).map((e) => `${e.type}/${e.op}`), ['stream/create', 'subscription/peer_add'], 'guests now see it');
  t.equal((await w.as(owner)('PATCH', `/streams/${lounge}`, { params: { is_web_public: false } })).status, 200, 'and not web-public again');
  t.same((await pq.drain(t)).map((e) => `${e.type}/${e.op}`), ['stream/delete'], 'guests lose it');
});
