import t from 'tap';
import { createUser, startTestServer } from '../../helpers/server.js';

const LEGACY = { client_capabilities: { user_settings_object: false } };

t.test('PATCH /settings', async (t) => {
  const ts = await startTestServer(t);
  const ann = await createUser(ts, 'ann@example.com', 'Ann');
  const bob = await createUser(ts, 'bob@example.com', 'Bob');
  const asAnn = ts.as(ann);
  const patch = (params: Record<string, unknown>, path = '/settings') => asAnn('PATCH', path, { params });
  const register = async (params: Record<string, unknown> = {}) => {
    const res = await asAnn('POST', '/register', { params });
    await asAnn('DELETE', '/events', { params: { queue_id: res.body.queue_id } });
    return res.body;
  };

  t.test('each kind of setting changes and shows in /register', async (t) => {
    const changes = {
      // A boolean, an integer choice, a free integer, string choices, a language, a sound.
      high_contrast_mode: true,
      color_scheme: 2,
      web_font_size_px: 18,
      emojiset: 'text',
      web_home_view: 'recent_topics',
      default_language: 'de',
      notification_sound: 'ding',
      email_notifications_batching_period_seconds: 600,
      enable_sounds: false,
      enter_sends: false,
      web_channel_default_view: 3,
      timezone: 'America/New_York',
    };
    const res = await patch(changes);
    t.equal(res.status, 200, 'accepted');
    t.same(res.body, { result: 'success', msg: '' }, 'an empty success, nothing ignored');
    const state = await register();
    for (const [name, value] of Object.entries(changes)) t.equal(state.user_settings[name], value, `user_settings.${name} is ${JSON.stringify(value)}`);
    const me = state.realm_users.find((u: { user_id: number }) => u.user_id === ann.userId);
    t.equal(me.timezone, 'America/New_York', 'realm_users shows the new time zone');
    const legacy = await register(LEGACY);
    t.equal(legacy.high_contrast_mode, true, 'legacy display key updated');
    t.equal(legacy.default_language, 'de', 'legacy default_language updated');
    t.equal(legacy.timezone, 'America/New_York', 'legacy timezone updated');
    t.equal(legacy.enable_sounds, false, 'legacy notification key updated');
    t.equal(legacy.notification_sound, 'ding', 'legacy notification_sound updated');
  });

  t.test('a value set back to its default is stored as the default', async (t) => {
    t.equal((await patch({ high_contrast_mode: false, notification_sound: 'none' })).status, 200, 'accepted');
    const state = await register();
    t.equal(state.user_settings.high_contrast_mode, false, 'back to the default');
    t.equal(state.user_settings.notification_sound, 'none', '"none" is a sound the reference allows');
  });

  t.test('full_name changes the name everywhere', async (t) => {
    t.equal((await patch({ full_name: '  Ann Smith ' })).status, 200, 'accepted');
    const me = await asAnn('GET', '/users/me');
    t.equal(me.body.full_name, 'Ann Smith', 'the name is trimmed and stored');
    const state = await ts.as(bob)('POST', '/register', { params: { fetch_event_types: ['realm_user'] } });
    t.equal(state.body.realm_users.find((u: { user_id: number }) => u.user_id === ann.userId).full_name, 'Ann Smith', "in others' realm_users");
    t.equal((await register({ fetch_event_types: ['realm_user'] })).full_name, 'Ann Smith', 'in the own full_name');
  });

  t.test('the deprecated aliases are the same endpoint', async (t) => {
    let res = await patch({ left_side_userlist: true }, '/settings/display');
    t.equal(res.status, 200, 'PATCH /settings/display accepted');
    res = await patch({ enable_digest_emails: false }, '/settings/notifications');
    t.equal(res.status, 200, 'PATCH /settings/notifications accepted');
    const state = await register();
    t.equal(state.user_settings.left_side_userlist, true, 'display alias changed a setting');
    t.equal(state.user_settings.enable_digest_emails, false, 'notifications alias changed a setting');
  });

  t.test('unknown and removed parameters are reported, the rest applied', async (t) => {
    const res = await patch({ dense_mode: true, no_such_setting: 1, translate_emoticons: true });
    t.equal(res.status, 200, 'accepted');
    t.same(res.body.ignored_parameters_unsupported, ['dense_mode', 'no_such_setting'], 'listed as ignored');
    t.equal((await register()).user_settings.translate_emoticons, true, 'the known one applied');
  });

  t.test('bad values are refused with the reference errors and change nothing', async (t) => {
    const cases: [Record<string, unknown>, string, string][] = [
      [{ high_contrast_mode: 'maybe' }, 'high_contrast_mode is not a boolean', 'REQUEST_VARIABLE_INVALID'],
      [{ color_scheme: 7 }, 'Invalid color_scheme', 'REQUEST_VARIABLE_INVALID'],
      [{ color_scheme: 'dark' }, 'color_scheme is not an integer', 'REQUEST_VARIABLE_INVALID'],
      [{ web_font_size_px: 0 }, 'web_font_size_px is too small', 'REQUEST_VARIABLE_INVALID'],
      [{ emojiset: 'apple' }, 'Invalid emojiset', 'REQUEST_VARIABLE_INVALID'],
      [{ web_home_view: 'home' }, 'Invalid web_home_view', 'REQUEST_VARIABLE_INVALID'],
      [{ web_animate_image_previews: 'sometimes' }, 'Invalid web_animate_image_previews', 'REQUEST_VARIABLE_INVALID'],
      [{ default_language: 'xx' }, 'Invalid default_language', 'BAD_REQUEST'],
      [{ notification_sound: 'klaxon' }, "Invalid notification sound 'klaxon'", 'BAD_REQUEST'],
      [{ email_notifications_batching_period_seconds: 0 }, 'Invalid email batching period: 0 seconds', 'BAD_REQUEST'],
      [{ email_notifications_batching_period_seconds: 604801 }, 'Invalid email batching period: 604801 seconds', 'BAD_REQUEST'],
      [{ timezone: 'Gondor/Minas_Tirith' }, 'Invalid timezone: Not a recognized time zone', 'REQUEST_VARIABLE_INVALID'],
      [{ timezone: 'america/new_york' }, 'Invalid timezone: Not a recognized time zone', 'REQUEST_VARIABLE_INVALID'],
      [{ timezone: '+01:00' }, 'Invalid timezone: Not a recognized time zone', 'REQUEST_VARIABLE_INVALID'],
      [{ full_name: '   ' }, 'Name too short!', 'BAD_REQUEST'],
      [{ full_name: 'x'.repeat(101) }, 'Name too long!', 'BAD_REQUEST'],
      [{ full_name: 'Ann *bold*' }, 'Invalid characters in name!', 'BAD_REQUEST'],
      [{ email_address_visibility: 4 }, 'This server shows email addresses to everyone; email_address_visibility cannot be changed', 'BAD_REQUEST'],
    ];
    const before = await register();
    for (const [params, msg, code] of cases) {
      // A valid change rides along: it must not be applied either.
      const res = await patch({ ...params, starred_message_counts: false });
      t.equal(res.status, 400, `${JSON.stringify(params)}: 400`);
      t.equal(res.body.msg, msg, `${JSON.stringify(params)}: ${msg}`);
      t.equal(res.body.code, code, `${JSON.stringify(params)}: ${code}`);
    }
    const after = await register();
    t.same(after.user_settings, before.user_settings, 'no setting changed');
    t.equal(after.full_name, before.full_name, 'the name did not change');
  });

  t.test('web_channel_default_view takes the four views of the spec', async (t) => {
    for (const view of [1, 2, 3, 4]) t.equal((await patch({ web_channel_default_view: view })).status, 200, `${view} accepted`);
    t.equal((await patch({ web_channel_default_view: 5 })).body.msg, 'Invalid web_channel_default_view', '5 refused');
  });

  // The whole flow, link and all, is email-change.test.ts's.
  t.test('email: the same address is no change; a refused one stops the request; another waits for its link', async (t) => {
    let res = await patch({ email: ' ann@example.com ' });
    t.equal(res.status, 200, 'the current address is accepted');
    res = await patch({ email: ts.owner.email, twenty_four_hour_time: true });
    t.equal(res.status, 400, 'an address in use is refused');
    t.equal(res.body.msg, 'Already has an account.', "with the reference's message");
    t.equal((await register()).user_settings.twenty_four_hour_time, false, 'and nothing else of the request applies');
    res = await patch({ email: 'ann2@example.com', twenty_four_hour_time: true });
    t.same(res.body, { result: 'success', msg: '' }, 'a new address is accepted, as the reference answers');
    t.equal((await register()).user_settings.twenty_four_hour_time, true, 'with the rest of the request');
    t.equal((await asAnn('GET', '/users/me')).body.email, 'ann@example.com', 'but the address waits for its link');
    await patch({ twenty_four_hour_time: false });
  });

  t.test('password changes', async (t) => {
    let res = await patch({ new_password: 'another-password' });
    t.equal(res.status, 400, 'new_password without old_password is refused');
    t.equal(res.body.msg, 'Wrong password!', "with the reference's message");
    res = await patch({ old_password: 'not-it', new_password: 'another-password', full_name: 'Ann Wrong' });
    t.equal(res.body.msg, 'Wrong password!', 'a wrong old password is refused');
    t.equal((await asAnn('GET', '/users/me')).body.full_name, 'Ann Smith', 'and nothing else of the request applies');
    res = await patch({ old_password: ann.password, new_password: '12345' });
    t.equal(res.body.msg, 'New password is too weak!', 'a short new password is refused');
    res = await patch({ old_password: ann.password, new_password: 'a-new-long-password' });
    t.equal(res.status, 200, 'the right old password changes it');
    const login = (password: string) => ts.request('POST', '/fetch_api_key', { params: { username: ann.email, password }, auth: null });
    t.equal((await login('a-new-long-password')).status, 200, 'the new password logs in');
    t.equal((await login(ann.password)).status, 401, 'the old one no longer does');
    t.equal((await asAnn('GET', '/users/me')).status, 200, 'the API key still works');
    res = await patch({ old_password: 'a-new-long-password', new_password: ann.password });
    t.equal(res.status, 200, 'changed back');
  });

  t.test('old_password alone changes nothing and is not an error', async (t) => {
    const res = await patch({ old_password: 'whatever' });
    t.equal(res.status, 200, 'accepted');
    t.notOk(res.body.ignored_parameters_unsupported, 'a known parameter');
  });
});

t.test('PATCH /settings under realm rules', async (t) => {
  const ts = await startTestServer(t);
  const ann = await createUser(ts, 'ann@example.com', 'Ann');
  await createUser(ts, 'bob@example.com', 'Bob');
  const name = async (c: typeof ann) => (await ts.as(c)('GET', '/users/me')).body.full_name;

  t.test('name_changes_disabled: members are silently ignored, administrators are not', async (t) => {
    t.equal((await ts.request('PATCH', '/realm', { params: { name_changes_disabled: true } })).status, 200, 'set');
    const res = await ts.as(ann)('PATCH', '/settings', { params: { full_name: 'Ann Renamed', left_side_userlist: true } });
    t.equal(res.status, 200, 'the request succeeds, as in the reference');
    t.equal(await name(ann), 'Ann', "the member's name did not change");
    const state = await ts.as(ann)('POST', '/register', { params: { fetch_event_types: ['user_settings'] } });
    t.equal(state.body.user_settings.left_side_userlist, true, 'the rest of the request applied');
    t.equal((await ts.request('PATCH', '/settings', { params: { full_name: 'The Owner' } })).status, 200, 'an owner may');
    t.equal((await ts.request('GET', '/users/me')).body.full_name, 'The Owner', "the owner's name changed");
    await ts.request('PATCH', '/realm', { params: { name_changes_disabled: false } });
  });

  t.test('require_unique_names refuses a name another user has', async (t) => {
    t.equal((await ts.request('PATCH', '/realm', { params: { require_unique_names: true } })).status, 200, 'set');
    const res = await ts.as(ann)('PATCH', '/settings', { params: { full_name: 'bob' } });
    t.equal(res.status, 400, 'refused');
    t.equal(res.body.msg, 'Unique names required in this organization.', "the reference's message");
    t.equal((await ts.as(ann)('PATCH', '/settings', { params: { full_name: 'Ann B' } })).status, 200, 'a free name is fine');
  });
});

t.test('wrong old passwords count against the login attempt limit', async (t) => {
  const ts = await startTestServer(t, { fetchApiKeyRateLimit: { failures: 3, windowSeconds: 600 } });
  const ann = await createUser(ts, 'ann@example.com', 'Ann');
  const change = (old_password: string) => ts.as(ann)('PATCH', '/settings', { params: { old_password, new_password: 'another-long-password' } });
  for (let i = 0; i < 3; i++) t.equal((await change('wrong')).body.msg, 'Wrong password!', `attempt ${i + 1}: wrong password`);
  const res = await change(ann.password);
  t.equal(res.status, 400, 'then even the right one is refused');
  t.match(res.body.msg, /^You're making too many attempts! Try again in \d+ seconds\.$/, "with the reference's message");
  const login = await ts.request('POST', '/fetch_api_key', { params: { username: ann.email, password: ann.password }, auth: null });
  t.equal(login.status, 429, 'and logins with the password are limited too');
});
