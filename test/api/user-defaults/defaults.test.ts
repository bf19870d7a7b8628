import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { parse } from 'yaml';
import { DEFAULT_SETTINGS } from '../../../src/api/user-defaults/index.js';
import { convergenceHarness, type Viewer } from '../../helpers/convergence.js';
import { createUser } from '../../helpers/server.js';
import { restart } from '../users/restart.js';
import { startWorld, type Person } from '../streams/world.js';

const ADMIN_ONLY = { result: 'error', msg: 'Must be an organization administrator', code: 'UNAUTHORIZED_PRINCIPAL' };

t.test('the settings are the reference\'s, feature level 372', async (t) => {
  const yaml = fileURLToPath(new URL('../../../../test/reference/zulip-openapi.yaml', import.meta.url));
  const doc = parse(readFileSync(yaml, 'utf8'), { maxAliasCount: -1 });
  const documented = Object.keys(doc.paths['/realm/user_settings_defaults'].patch.requestBody.content['application/x-www-form-urlencoded'].schema.properties);
  t.same([...DEFAULT_SETTINGS].sort(), documented.sort(), 'PATCH /realm/user_settings_defaults takes exactly the documented settings');
});

t.test('PATCH /realm/user_settings_defaults', async (t) => {
  const w = await startWorld(t);
  const { admin, owner, hamlet, polonius, bot } = w.root;
  const defaults = async (who: Person = hamlet) => (await w.as(who)('POST', '/register', { params: { fetch_event_types: ['realm_user_settings_defaults'] } })).body.realm_user_settings_defaults;
  const settingsOf = async (who: Person) => (await w.as(who)('POST', '/register', { params: { fetch_event_types: ['user_settings'] } })).body.user_settings;

  t.test('the server\'s defaults at first', async (t) => {
    const d = await defaults();
    t.equal(d.color_scheme, 1, 'color_scheme');
    t.equal(d.enter_sends, true, 'enter_sends: a new organization starts with Enter sending (src/api/realm/actions.ts)');
    t.equal(d.default_language, 'en', 'default_language');
    t.ok(Array.isArray(d.available_notification_sounds), 'with the sounds');
  });

  t.test('an administrator changes them; unknown and newer settings are reported', async (t) => {
    const res = await w.as(admin)('PATCH', '/realm/user_settings_defaults', {
      params: { color_scheme: 2, enter_sends: true, web_channel_default_view: 3, notification_sound: 'ding', web_home_view: 'all_messages', emojiset: 'text', web_left_sidebar_show_channel_folders: true, default_language: 'de', bogus: 1 },
    });
    t.equal(res.status, 200, 'accepted');
    t.same(res.body.ignored_parameters_unsupported?.sort(), ['bogus', 'default_language', 'web_left_sidebar_show_channel_folders'], 'what this endpoint does not take is listed');
    const d = await defaults(polonius);
    t.same([d.color_scheme, d.enter_sends, d.web_channel_default_view, d.notification_sound, d.web_home_view, d.emojiset, d.default_language], [2, true, 3, 'ding', 'all_messages', 'text', 'en'], 'every user sees the new defaults');
    t.equal((await w.as(owner)('PATCH', '/realm/user_settings_defaults', { params: { high_contrast_mode: true } })).status, 200, 'the owner too');
  });

  t.test('errors', async (t) => {
    const patch = (params: Record<string, unknown>) => w.as(admin)('PATCH', '/realm/user_settings_defaults', { params });
    for (const [what, params] of [
      ['a color scheme out of range', { color_scheme: 4 }],
      ['a channel view out of range', { web_channel_default_view: 5 }],
      ['a home view that does not exist', { web_home_view: 'feed' }],
      ['an emoji set that does not exist', { emojiset: 'apple' }],
      ['a boolean that is none', { enter_sends: 'perhaps' }],
      ['a font size of zero', { web_font_size_px: 0 }],
    ] as const) {
      const res = await patch(params);
      t.equal(res.status, 400, `${what}: refused`);
      t.equal(res.body.code, 'REQUEST_VARIABLE_INVALID', `${what}: names the parameter`);
    }
    t.same((await patch({ notification_sound: 'kazoo' })).body, { result: 'error', msg: "Invalid notification sound 'kazoo'", code: 'BAD_REQUEST' }, 'an unknown sound');
    t.same((await patch({ email_notifications_batching_period_seconds: 0 })).body, { result: 'error', msg: 'Invalid email batching period: 0 seconds', code: 'BAD_REQUEST' }, 'a batching period of zero');
    t.same((await patch({ enter_sends: false, color_scheme: 9 })).body.code, 'REQUEST_VARIABLE_INVALID', 'one bad value refuses the request');
    t.equal((await defaults()).enter_sends, true, '...and nothing changed');
  });

  t.test('members, guests and bots are refused', async (t) => {
    for (const [name, who] of [['member', hamlet], ['guest', polonius], ['bot', bot]] as const) {
      t.same((await w.as(who)('PATCH', '/realm/user_settings_defaults', { params: { color_scheme: 3 } })).body, ADMIN_ONLY, `${name}: refused`);
    }
    t.equal((await defaults()).color_scheme, 2, 'unchanged');
  });

  t.test('new users start with them; existing users keep their own', async (t) => {
    const before = await settingsOf(hamlet);
    t.equal(before.color_scheme, 1, 'hamlet, created before, keeps the automatic scheme');
    const ophelia = await createUser(w.ts, 'ophelia@example.com', 'Ophelia');
    const hers = await settingsOf(ophelia);
    t.same([hers.color_scheme, hers.enter_sends, hers.web_channel_default_view, hers.notification_sound, hers.emojiset, hers.high_contrast_mode], [2, true, 3, 'ding', 'text', true], 'a new user has the realm\'s defaults');
    await w.as(ophelia)('PATCH', '/settings', { params: { color_scheme: 1 } });
    t.equal((await settingsOf(ophelia)).color_scheme, 1, 'and may change them like any setting');
    const other = await w.asOther(w.other.owner)('POST', '/register', { params: { fetch_event_types: ['realm_user_settings_defaults'] } });
    t.equal(other.body.realm_user_settings_defaults.color_scheme, 1, "another realm's defaults are its own");
  });

  t.test('they survive a restart', async (t) => {
    const before = await defaults();
    await restart(t, w.ts, async () => undefined);
    t.same(await defaults(), before, 'the same defaults');
    const laertes = await createUser(w.ts, 'laertes@example.com', 'Laertes');
    t.equal((await settingsOf(laertes)).color_scheme, 2, 'and new users still get them');
  });
});

t.test('defaults changes converge with a fresh snapshot', async (t) => {
  const w = await startWorld(t);
  const { owner, admin, hamlet, polonius } = w.root;
  const viewers: Viewer[] = [owner, hamlet, polonius];
  const { ok, converges } = convergenceHarness(t, w.ts);
  await converges('several settings', () => ok(admin, 'PATCH', '/realm/user_settings_defaults', { color_scheme: 3, left_side_userlist: true, web_font_size_px: 18, notification_sound: 'none' }), viewers);
  await converges('back to the server\'s', () => ok(admin, 'PATCH', '/realm/user_settings_defaults', { color_scheme: 1, left_side_userlist: false }), viewers);
});
