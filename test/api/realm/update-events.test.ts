import t from 'tap';
import { doCreateRealm } from '../../../src/api/realm/actions.js';
import { realmSetting } from '../../../src/model/realm-settings.js';
import { checkEvent } from '../../helpers/openapi.js';
import { ROLE, startShard } from './harness.js';

t.test('PATCH /realm: realm events', async (t) => {
  const h = await startShard(t);
  const member = await h.user(ROLE.member);
  const guest = await h.user(ROLE.guest);
  const gone = await h.user(ROLE.member);
  h.realm.setUser({ ...gone, isActive: false });
  const everyone = [h.owner.id, member.id, guest.id].sort((a, b) => a - b);
  const patch = async (params: Record<string, unknown>) => {
    h.events.length = 0;
    const res = await h.call('realm.update', h.owner, params);
    t.equal(res.status, 200, `${Object.keys(params).join(', ')}: status 200`);
    const events = h.events.filter((e) => e.event.type === 'realm');
    for (const e of events) t.doesNotThrow(() => checkEvent(e.event), `${e.event.op} event matches the reference schema`);
    return events;
  };

  t.test('a simple setting: op update with property and value, to every active user', async (t) => {
    const events = await patch({ mandatory_topics: 'true' });
    t.equal(events.length, 1, 'one event');
    t.same(events[0].event, { type: 'realm', op: 'update', property: 'mandatory_topics', value: true }, 'reference shape');
    t.same([...events[0].userIds].sort((a, b) => a - b), everyone, 'sent to the active users, guests included');
    t.equal(events[0].realmId, h.realm.id, 'for this realm');
  });

  t.test('message editing settings use op update_dict', async (t) => {
    let events = await patch({ allow_message_editing: 'false' });
    t.same(events[0].event, { type: 'realm', op: 'update_dict', property: 'default', data: { allow_message_editing: false } }, 'allow_message_editing');
    events = await patch({ message_content_edit_limit_seconds: '"unlimited"' });
    t.same(events[0].event, { type: 'realm', op: 'update_dict', property: 'default', data: { message_content_edit_limit_seconds: null } }, 'edit limit, null for unlimited');
    events = await patch({ move_messages_between_streams_limit_seconds: '86400' });
    t.same(events[0].event, { type: 'realm', op: 'update', property: 'move_messages_between_streams_limit_seconds', value: 86400 }, 'move limits use op update');
  });

  t.test('group settings use op update_dict with the group-setting value', async (t) => {
    const moderators = h.realm.systemGroupId('role:moderators');
    let events = await patch({ can_resolve_topics_group: JSON.stringify({ new: moderators }) });
    t.same(events[0].event, { type: 'realm', op: 'update_dict', property: 'default', data: { can_resolve_topics_group: moderators } }, 'a group id');
    events = await patch({ can_summarize_topics_group: JSON.stringify({ new: { direct_members: [member.id], direct_subgroups: [moderators] } }) });
    t.same(events[0].event.data, { can_summarize_topics_group: { direct_members: [member.id], direct_subgroups: [moderators] } }, 'an anonymous group');
  });

  t.test('name, description and string-valued settings', async (t) => {
    const events = await patch({ name: 'New name', description: 'New description', message_edit_history_visibility_policy: 'moves' });
    const byProperty = Object.fromEntries(events.map((e) => [e.event.property, e.event.value]));
    t.same(byProperty, { name: 'New name', description: 'New description', message_edit_history_visibility_policy: 'moves' }, 'op update with the new values');
  });

  t.test('one event per changed setting, none for unchanged ones', async (t) => {
    let events = await patch({ mandatory_topics: 'true', inline_image_preview: 'false', giphy_rating: '3' });
    t.same(events.map((e) => e.event.property).sort(), ['giphy_rating', 'inline_image_preview'], 'mandatory_topics was already true');
    events = await patch({ mandatory_topics: 'true' });
    t.equal(events.length, 0, 'no change, no event');
  });

  t.test('a refused request sends nothing', async (t) => {
    h.events.length = 0;
    const res = await h.call('realm.update', member, { mandatory_topics: 'false' });
    t.equal(res.status, 400, 'refused');
    t.equal(h.events.length, 0, 'no event');
  });

  t.test('another realm on the same shard is untouched', async (t) => {
    await doCreateRealm(h.shard, { id: 2, subdomain: 'other', name: 'Other', ownerEmail: 'boss@other.example.com', ownerFullName: 'Boss' });
    const other = h.shard.realm(2)!;
    const events = await patch({ enable_spectator_access: 'true' });
    t.equal(realmSetting(other, 'enable_spectator_access'), false, 'the other realm keeps its setting');
    t.equal(realmSetting(h.realm, 'enable_spectator_access'), true, 'this realm changed');
    t.ok(events.every((e) => e.realmId === h.realm.id), 'events only for this realm');
    t.notOk(events.some((e) => e.userIds.some((id) => other.users.has(id))), 'no user of the other realm is told');
  });
});
