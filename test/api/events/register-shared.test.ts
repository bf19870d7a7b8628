import t from 'tap';
import { createUser, startTestServer, type Credentials } from '../../helpers/server.js';
import { png, uploadEmoji } from '../emoji/fixtures.js';

/**
 * The sections of POST /register that are the same for every user of a realm come from a copy
 * kept per realm (api/events/register-shared.ts). With registerCacheCheck, the server builds each
 * of them afresh on every register too and answers a 500 if the whole answer differs by a byte:
 * so every register below compares the cached answer with a fresh one, for every kind of user
 * and of request, after every kind of change. The changes must also show (no stale copy).
 */
t.test('POST /register: the shared sections are the fresh ones after every change, for every user', async (t) => {
  const ts = await startTestServer(t, { registerCacheCheck: true });
  const owner = ts.as(ts.owner);
  const member = await createUser(ts, 'mia@example.com', 'Mia');
  const guest = await createUser(ts, 'gus@example.com', 'Gus');
  await owner('PATCH', `/users/${guest.userId}`, { params: { role: 600 } });
  const botRes = await ts.as(member)('POST', '/bots', { params: { full_name: 'Helper Bot', short_name: 'helper', bot_type: 1 } });
  t.equal(botRes.status, 200, 'a bot is made');
  const botUser = (await owner('GET', `/users/${botRes.body.user_id}`)).body.user;
  const bot: Credentials = { email: botUser.delivery_email ?? botUser.email, apiKey: botRes.body.api_key };
  const people: [string, Credentials][] = [['owner', ts.owner], ['member', member], ['guest', guest], ['bot', bot]];

  const variants: [string, Record<string, unknown>][] = [
    ['every section', {}],
    ['every section, old client', { client_capabilities: {}, client_gravatar: false }],
    [
      'every section, every capability',
      {
        client_capabilities: {
          notification_settings_null: true, bulk_message_deletion: true, user_avatar_url_field_optional: true, stream_typing_notifications: true,
          user_settings_object: true, empty_topic_name: true, archived_channels: true, include_deactivated_groups: true, linkifier_url_template: true,
          user_list_incomplete: true,
        },
        include_subscribers: true,
        slim_presence: true,
      },
    ],
    ['realm and groups only', { fetch_event_types: ['realm', 'realm_user_groups', 'realm_linkifiers'], client_capabilities: { include_deactivated_groups: true, linkifier_url_template: true } }],
    ['people and channels', { fetch_event_types: ['realm_user', 'subscription', 'stream', 'realm_emoji', 'custom_profile_fields'], include_subscribers: 'partial' }],
    ['by event_types', { event_types: ['realm_emoji', 'realm_playgrounds', 'realm_domains', 'realm_user_settings_defaults', 'realm_incoming_webhook_bots', 'realm_embedded_bots'] }],
  ];
  const registerAll = async (step: string, those: [string, Credentials][] = people) => {
    const bodies = new Map<string, Record<string, any>>();
    for (const [who, creds] of those) {
      for (const [what, params] of variants) {
        const res = await ts.as(creds)('POST', '/register', { params });
        t.equal(res.status, 200, `${step}: ${who}, ${what}`);
        if (res.status !== 200) t.comment(JSON.stringify(res.body).slice(0, 600));
        bodies.set(`${who}:${what}`, res.body);
        await ts.as(creds)('DELETE', '/events', { params: { queue_id: res.body.queue_id } });
      }
    }
    return (who: string, what = 'every section') => bodies.get(`${who}:${what}`)!;
  };

  let seen = await registerAll('at the start');
  // Twice in a row: the second comes from the copies the first made.
  seen = await registerAll('again, from the copies');
  t.same(seen('member').realm_user_groups, seen('guest').realm_user_groups, 'every user gets the same groups');

  await owner('PATCH', '/realm', { params: { name: 'Renamed Realm', description: 'new words' } });
  seen = await registerAll('a realm setting');
  t.equal(seen('member').realm_name, 'Renamed Realm', 'the setting shows');

  await owner('PATCH', '/realm', { params: { email_address_visibility: 5 } });
  seen = await registerAll('restricted email visibility');

  const emoji = await uploadEmoji(ts, 'green_tick', [png()]);
  t.equal(emoji.status, 200, 'an emoji is added');
  seen = await registerAll('a custom emoji');
  t.ok(Object.values(seen('guest').realm_emoji).some((e: any) => e.name === 'green_tick'), 'the emoji shows');

  const group = await owner('POST', '/user_groups/create', { params: { name: 'backend', description: 'the backend team', members: JSON.stringify([member.userId]) } });
  t.equal(group.status, 200, 'a group is made');
  seen = await registerAll('a new group');
  const backend = () => seen('member').realm_user_groups.find((g: any) => g.name === 'backend');
  t.same(backend()?.members, [member.userId], 'the group shows');

  await owner('POST', `/user_groups/${group.body.group_id}/members`, { params: { add: JSON.stringify([ts.owner.userId]) } });
  seen = await registerAll('a group member');
  t.same(backend()?.members.sort(), [ts.owner.userId, member.userId].sort(), 'the member shows');

  await owner('PATCH', `/users/${member.userId}`, { params: { full_name: 'Mia Renamed' } });
  seen = await registerAll('a rename');
  t.ok(seen('guest', 'people and channels').realm_users.some((u: any) => u.full_name === 'Mia Renamed' || u.user_id !== member.userId), 'the rename shows');

  await owner('POST', '/users/me/subscriptions', { params: { subscriptions: JSON.stringify([{ name: 'secret plans' }]), invite_only: true } });
  await owner('POST', '/users/me/subscriptions', { params: { subscriptions: JSON.stringify([{ name: 'town square' }]), principals: JSON.stringify([member.userId]) } });
  seen = await registerAll('a private and a public channel');
  t.notOk(JSON.stringify(seen('member')).includes('secret plans'), 'a member does not see the private channel');
  t.ok(seen('owner').subscriptions.some((s: any) => s.name === 'secret plans'), 'its subscriber does');

  await owner('POST', '/realm/filters', { params: { pattern: '#(?P<id>[0-9]+)', url_template: 'https://tracker.example.com/{id}' } });
  await owner('POST', '/realm/playgrounds', { params: { name: 'Go', pygments_language: 'Go', url_template: 'https://go.example.com/{code}' } });
  await owner('POST', '/realm/profile_fields', { params: { name: 'Team', hint: '', field_type: 1 } });
  await owner('PATCH', '/realm/user_settings_defaults', { params: { high_contrast_mode: true } });
  seen = await registerAll('a linkifier, a playground, a profile field, user defaults');
  t.equal(seen('bot', 'realm and groups only').realm_linkifiers.length, 1, 'the linkifier shows');
  t.equal(seen('member').realm_playgrounds.length, 1, 'the playground shows');
  t.ok(seen('member').custom_profile_fields.some((f: any) => f.name === 'Team'), 'the profile field shows');
  t.equal(seen('member').realm_user_settings_defaults.high_contrast_mode, true, 'the default shows');

  await owner('DELETE', `/users/${member.userId}`);
  // Their bot goes with them.
  seen = await registerAll('a deactivated member', people.filter(([who]) => who === 'owner' || who === 'guest'));
  t.notOk(seen('owner').realm_user_groups.find((g: any) => g.name === 'backend').members.includes(member.userId), 'a deactivated user leaves the groups as listed');
  await owner('POST', `/users/${member.userId}/reactivate`);
  await owner('POST', `/users/${botRes.body.user_id}/reactivate`);
  await owner('PATCH', `/user_groups/${group.body.group_id}/deactivate`);
  await owner('POST', `/user_groups/${group.body.group_id}/deactivate`);
  await owner('DELETE', '/realm/emoji/green_tick');
  seen = await registerAll('a reactivation, a deactivated group and emoji');
  t.equal(seen('member', 'realm and groups only').realm_user_groups.find((g: any) => g.name === 'backend')?.deactivated, true, 'the deactivated group shows to a client that takes them');
  t.notOk(seen('member').realm_user_groups.some((g: any) => g.name === 'backend'), 'and not to one that does not');
});
