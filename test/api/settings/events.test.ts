import t from 'tap';
import { checkEvent } from '../../helpers/openapi.js';
import { createUser, startTestServer, type Credentials } from '../../helpers/server.js';

const MODERN = { client_capabilities: { user_settings_object: true } };
const LEGACY = { client_capabilities: { user_settings_object: false } };

t.test('PATCH /settings events', async (t) => {
  const ts = await startTestServer(t);
  const ann = await createUser(ts, 'ann@example.com', 'Ann');
  const bob = await createUser(ts, 'bob@example.com', 'Bob');

  const open = async (c: Credentials, params: Record<string, unknown>) => (await ts.as(c)('POST', '/register', { params: { ...params, fetch_event_types: [] } })).body.queue_id as string;
  const drain = async (c: Credentials, queueId: string) => {
    const res = await ts.as(c)('GET', '/events', { params: { queue_id: queueId, last_event_id: -1, dont_block: true } });
    await ts.as(c)('DELETE', '/events', { params: { queue_id: queueId } });
    const events = (res.body.events as Record<string, unknown>[]).map(({ id: _id, ...rest }) => rest);
    for (const event of events) t.doesNotThrow(() => checkEvent(event), `${event.type} matches the reference schema`);
    return events;
  };
  /** Runs `action` with queues open for Ann (both modes) and Bob; returns what each received. */
  const observe = async (action: () => Promise<unknown>) => {
    const queues = { modern: await open(ann, MODERN), legacy: await open(ann, LEGACY), bob: await open(bob, MODERN) };
    await action();
    return { modern: await drain(ann, queues.modern), legacy: await drain(ann, queues.legacy), bob: await drain(bob, queues.bob) };
  };
  const patch = (params: Record<string, unknown>) => ts.as(ann)('PATCH', '/settings', { params });

  t.test('a display setting', async (t) => {
    const got = await observe(() => patch({ high_contrast_mode: true }));
    const modern = { type: 'user_settings', op: 'update', property: 'high_contrast_mode', value: true };
    t.same(got.modern, [modern], 'a user_settings queue gets user_settings only');
    t.same(got.legacy, [modern, { type: 'update_display_settings', user: ann.email, setting_name: 'high_contrast_mode', setting: true }], 'a legacy queue also gets update_display_settings');
    t.same(got.bob, [], "nothing reaches another user's queue");
  });

  t.test('a notification setting', async (t) => {
    const got = await observe(() => patch({ enable_sounds: false }));
    const modern = { type: 'user_settings', op: 'update', property: 'enable_sounds', value: false };
    t.same(got.modern, [modern], 'user_settings');
    t.same(got.legacy, [modern, { type: 'update_global_notifications', user: ann.email, notification_name: 'enable_sounds', setting: false }], 'and update_global_notifications');
    t.same(got.bob, [], 'nobody else');
  });

  t.test('a setting newer than the legacy events', async (t) => {
    const got = await observe(() => patch({ web_font_size_px: 20 }));
    const modern = { type: 'user_settings', op: 'update', property: 'web_font_size_px', value: 20 };
    t.same(got.modern, [modern], 'user_settings');
    t.same(got.legacy, [modern], 'no legacy form exists for it');
  });

  t.test('default_language carries the language name', async (t) => {
    const got = await observe(() => patch({ default_language: 'de' }));
    t.same(got.modern, [{ type: 'user_settings', op: 'update', property: 'default_language', value: 'de', language_name: 'Deutsch' }], 'user_settings with language_name');
    t.same(got.legacy[1], { type: 'update_display_settings', user: ann.email, setting_name: 'default_language', setting: 'de', language_name: 'Deutsch' }, 'the legacy form too');
  });

  t.test('timezone also reaches every user as realm_user update', async (t) => {
    const got = await observe(() => patch({ timezone: 'Europe/Berlin' }));
    const person = { type: 'realm_user', op: 'update', person: { email: ann.email, user_id: ann.userId, timezone: 'Europe/Berlin' } };
    const modern = { type: 'user_settings', op: 'update', property: 'timezone', value: 'Europe/Berlin' };
    t.same(got.modern, [modern, person], 'user_settings and realm_user');
    t.same(got.legacy, [modern, { type: 'update_display_settings', user: ann.email, setting_name: 'timezone', setting: 'Europe/Berlin' }, person], 'plus the legacy form');
    t.same(got.bob, [person], 'others get the realm_user update');
  });

  t.test('full_name reaches every user as realm_user update', async (t) => {
    const got = await observe(() => patch({ full_name: 'Ann Smith' }));
    const person = { type: 'realm_user', op: 'update', person: { user_id: ann.userId, full_name: 'Ann Smith' } };
    t.same(got.modern, [person], 'the user');
    t.same(got.legacy, [person], 'in both modes');
    t.same(got.bob, [person], 'and the others');
  });

  t.test('an unchanged value sends nothing', async (t) => {
    const got = await observe(() => patch({ high_contrast_mode: true, full_name: 'Ann Smith', timezone: 'Europe/Berlin' }));
    t.same(got, { modern: [], legacy: [], bob: [] }, 'no events anywhere');
  });

  t.test('a refused request sends nothing', async (t) => {
    const got = await observe(() => patch({ high_contrast_mode: false, color_scheme: 9 }));
    t.same(got, { modern: [], legacy: [], bob: [] }, 'no events anywhere');
  });

  t.test('a queue that asked for legacy types only gets them', async (t) => {
    const queue = (await ts.as(ann)('POST', '/register', { params: { ...LEGACY, event_types: ['update_display_settings'] } })).body.queue_id;
    await patch({ left_side_userlist: true, enable_sounds: true });
    t.same(await drain(ann, queue), [{ type: 'update_display_settings', user: ann.email, setting_name: 'left_side_userlist', setting: true }], 'only the display event');
  });
});

t.test('receives_typing_notifications: false stops typing events reaching the user', async (t) => {
  const ts = await startTestServer(t);
  const ann = await createUser(ts, 'ann@example.com', 'Ann');
  const bob = await createUser(ts, 'bob@example.com', 'Bob');
  const typingSeen = async () => {
    const queue = (await ts.as(ann)('POST', '/register', { params: { event_types: ['typing'] } })).body.queue_id;
    t.equal((await ts.as(bob)('POST', '/typing', { params: { op: 'start', to: [ann.userId] } })).status, 200, 'Bob types');
    const res = await ts.as(ann)('GET', '/events', { params: { queue_id: queue, last_event_id: -1, dont_block: true } });
    await ts.as(ann)('DELETE', '/events', { params: { queue_id: queue } });
    return res.body.events.length as number;
  };
  t.equal(await typingSeen(), 1, 'Ann sees typing by default');
  t.equal((await ts.as(ann)('PATCH', '/settings', { params: { receives_typing_notifications: false } })).status, 200, 'Ann turns it off');
  t.equal(await typingSeen(), 0, 'Ann no longer gets typing events');
});
