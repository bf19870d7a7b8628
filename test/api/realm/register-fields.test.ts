import t from 'tap';
import { DEFAULT_GROUP_SETTINGS, defaultRealmSettings, realmSetting, registerRealmFields } from '../../../src/model/realm-settings.js';
import { startShard } from './harness.js';
import { registerFieldErrors } from './register-schema.js';

t.test('realm settings: the realm_* keys of /register', async (t) => {
  const h = await startShard(t);
  const url = 'http://chat.example.com';
  const groupId = (name: string) => h.realm.systemGroupId(name);

  t.test('a new realm has the reference defaults', async (t) => {
    const fields = registerRealmFields(h.realm, { url });
    t.equal(fields.realm_allow_message_editing, true, 'message editing is allowed');
    t.equal(fields.realm_message_content_edit_limit_seconds, 600, 'edit limit is 10 minutes');
    t.equal(fields.realm_message_content_delete_limit_seconds, 600, 'delete limit is 10 minutes');
    t.equal(fields.realm_move_messages_within_stream_limit_seconds, 604800, 'topic move limit is a week');
    t.equal(fields.realm_move_messages_between_streams_limit_seconds, 604800, 'channel move limit is a week');
    t.equal(fields.realm_mandatory_topics, false, 'topics are optional');
    t.equal(fields.realm_enable_spectator_access, false, 'no spectator access');
    t.equal(fields.realm_waiting_period_threshold, 0, 'no waiting period');
    t.equal(fields.realm_invite_required, true, 'invitations are required');
    t.equal(fields.realm_message_edit_history_visibility_policy, 'all', 'all edit history is visible');
    t.equal(fields.realm_allow_edit_history, true, 'the deprecated boolean follows the policy');
    t.equal(fields.realm_message_retention_days, -1, 'messages are kept forever');
    t.equal(fields.realm_new_stream_announcements_stream_id, -1, 'no announcement channel');
    t.equal(fields.realm_name, 'Test realm', 'realm_name is the realm name');
    t.equal(fields.realm_url, url, 'realm_url is the given URL');
    t.equal(fields.realm_uri, url, 'realm_uri mirrors realm_url');
    t.equal(fields.realm_bot_domain, 'chat.example.com', 'bots take the realm host as their domain');
    t.equal(fields.realm_empty_topic_display_name, 'general chat', 'the empty topic is shown as "general chat"');
  });

  t.test('every permission group setting names its default system group', async (t) => {
    const fields = registerRealmFields(h.realm, { url });
    t.equal(Object.keys(DEFAULT_GROUP_SETTINGS).length, 22, 'the 22 realm group settings of feature level 372');
    for (const [name, group] of Object.entries(DEFAULT_GROUP_SETTINGS)) {
      t.equal(fields[`realm_${name}`], groupId(group), `realm_${name} is ${group}`);
    }
    t.equal(fields.realm_can_mention_many_users_group, groupId('role:administrators'), 'wildcard mentions in big channels: administrators');
    t.equal(fields.realm_can_create_web_public_channel_group, groupId('role:owners'), 'web-public channels: owners');
    t.equal(fields.realm_can_manage_all_groups, groupId('role:owners'), 'managing all groups: owners');
    t.equal(fields.realm_create_multiuse_invite_group, groupId('role:administrators'), 'invite links: administrators');
  });

  t.test('the deprecated policy enums are derived from the group settings', async (t) => {
    const fields = registerRealmFields(h.realm, { url });
    t.equal(fields.realm_create_public_stream_policy, 1, 'members may create public channels');
    t.equal(fields.realm_create_private_stream_policy, 1, 'members may create private channels');
    t.equal(fields.realm_create_web_public_stream_policy, 7, 'owners may create web-public channels');
    t.equal(fields.realm_wildcard_mention_policy, 5, 'administrators may mention many users');
  });

  t.test('the keys and their types match the reference /register schema', async (t) => {
    t.same(registerFieldErrors(registerRealmFields(h.realm, { url })), [], 'every field is a valid /register field');
    const spectator = registerRealmFields(h.realm, { url, spectator: true });
    t.equal(spectator.realm_allow_message_editing, false, 'spectators cannot edit');
    t.equal(spectator.realm_presence_disabled, true, 'spectators see no presence');
  });

  t.test('a realm stored before a setting existed reads the default', async (t) => {
    const saved = h.realm.realm;
    h.realm.realm = { ...saved, settings: { allow_message_editing: false, mandatory_topics: true } };
    t.teardown(() => {
      h.realm.realm = saved;
    });
    t.equal(realmSetting(h.realm, 'allow_message_editing'), false, 'a stored value wins');
    t.equal(realmSetting(h.realm, 'mandatory_topics'), true, 'another stored value wins');
    t.equal(realmSetting(h.realm, 'message_content_edit_limit_seconds'), 600, 'a missing simple setting is its default');
    t.equal(realmSetting(h.realm, 'can_resolve_topics_group'), groupId('role:everyone'), 'a missing group setting is its default group');
    const fields = registerRealmFields(h.realm, { url });
    t.equal(fields.realm_can_summarize_topics_group, groupId('role:everyone'), '/register fields fill the gaps');
    t.same(registerFieldErrors(fields), [], 'still valid /register fields');
  });

  t.test('defaultRealmSettings stores every setting', async (t) => {
    const settings = defaultRealmSettings(groupId);
    t.equal(settings.can_delete_any_message_group, groupId('role:administrators'), 'group settings hold group ids');
    t.equal(settings.message_content_edit_limit_seconds, 600, 'simple settings hold their defaults');
    t.same(h.realm.realm.settings, settings, 'a new realm stores exactly the defaults');
  });
});
