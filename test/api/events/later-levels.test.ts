import t from 'tap';
import { checkResponse } from '../../helpers/openapi.js';
import { createUser, startTestServer } from '../../helpers/server.js';

/**
 * This server reports feature level 372 and serves some state from later levels (channel
 * folders 389/410, navigation views 390, reminders 399). A client of level 372, and the
 * reference's own API test suite checking against the 10.2 description, must see the 10.2 shapes
 * exactly: the later state comes when asked for by name, or once it holds something.
 */
const LATER_KEYS = ['channel_folders', 'navigation_views', 'reminders', 'max_channel_folder_name_length', 'max_channel_folder_description_length'];

t.test('state from later feature levels', async (t) => {
  const ts = await startTestServer(t);
  const ann = await createUser(ts, 'ann@example.com');
  const asOwner = ts.as(ts.owner);
  const asAnn = ts.as(ann);
  const ok = async (res: Promise<{ status: number; body: any }>) => {
    const r = await res;
    if (r.status !== 200) throw new Error(JSON.stringify(r.body));
    return r.body;
  };
  const strict = (method: string, path: string, body: unknown) => t.doesNotThrow(() => checkResponse(method, path, body, { strict: true }), `${method} ${path} matches the 10.2 description, with nothing added`);
  const registerAll = (who = asOwner) => ok(who('POST', '/register', {}));
  const streams = async () => (await ok(asOwner('GET', '/streams'))).streams as Record<string, unknown>[];

  t.test('a realm that uses none of them answers as a 10.2 server', async (t) => {
    const list = await ok(asOwner('GET', '/streams'));
    strict('GET', '/streams', list);
    t.ok(list.streams.length > 0, 'there are channels to look at');
    t.notOk(list.streams.some((s: object) => 'folder_id' in s), 'no folder_id on channels');
    strict('GET', '/users/me/subscriptions', await ok(asOwner('GET', '/users/me/subscriptions')));
    strict('GET', `/streams/${list.streams[0].stream_id}`, await ok(asOwner('GET', `/streams/${list.streams[0].stream_id}`)));
    const state = await registerAll();
    strict('POST', '/register', state);
    t.same(LATER_KEYS.filter((k) => k in state), [], 'a register naming no types has none of the later keys');
    const realmOnly = await ok(asOwner('POST', '/register', { params: { fetch_event_types: ['realm'] } }));
    strict('POST', '/register', realmOnly);
    t.notOk('max_channel_folder_name_length' in realmOnly, 'nor one naming the realm section: the folder limits come with folders');
  });

  t.test('a client that names them gets them, empty', async (t) => {
    const state = await ok(asOwner('POST', '/register', { params: { fetch_event_types: ['channel_folders', 'navigation_view', 'reminders', 'realm'] } }));
    t.match(state, { channel_folders: [], navigation_views: [], reminders: [], max_channel_folder_name_length: 60, max_channel_folder_description_length: 1024 }, 'each, with the folder limits in the realm section');
  });

  t.test('navigation views and reminders appear for the user who has some', async (t) => {
    await ok(asAnn('POST', '/navigation_views', { params: { fragment: 'narrow/is/starred', is_pinned: true, name: 'Stars' } }));
    const mine = await registerAll(asAnn);
    t.same(mine.navigation_views, [{ fragment: 'narrow/is/starred', is_pinned: true, name: 'Stars' }], 'Ann\'s views');
    t.notOk('reminders' in mine, 'but no reminders: she has none');
    t.notOk('navigation_views' in (await registerAll()), 'another user has none, and no key');

    const sent = await ok(asOwner('POST', '/messages', { params: { type: 'private', to: JSON.stringify([ann.userId]), content: 'remind me' } }));
    const due = Math.floor(Date.now() / 1000) + 86400;
    await ok(asOwner('POST', '/reminders', { params: { message_id: sent.id, scheduled_delivery_timestamp: due } }));
    const owner = await registerAll();
    t.match(owner.reminders, [{ reminder_target_message_id: sent.id, scheduled_delivery_timestamp: due }], 'the owner\'s reminder');
    t.notOk('reminders' in (await registerAll(asAnn)), 'not shown to Ann');
  });

  t.test('once the realm has a channel folder, every channel names its folder', async (t) => {
    const before = await ok(asAnn('POST', '/register', { params: { event_types: ['channel_folder'] } }));
    const folder = (await ok(asOwner('POST', '/channel_folders/create', { params: { name: 'Work', description: '' } }))).channel_folder_id;
    const events = (await ok(asAnn('GET', '/events', { params: { queue_id: before.queue_id, last_event_id: -1, dont_block: true } }))).events;
    t.match(events, [{ type: 'channel_folder', op: 'add', channel_folder: { id: folder, name: 'Work' } }], 'clients hear of the first folder');
    const list = await streams();
    t.ok(list.every((s) => s.folder_id === null), 'folder_id: null on every channel');
    const state = await registerAll(asAnn);
    t.match(state, { channel_folders: [{ id: folder, name: 'Work' }], max_channel_folder_name_length: 60 }, 'the folders and their limits in a register naming no types');
    t.ok((state.subscriptions as Record<string, unknown>[]).every((s) => s.folder_id === null), 'and on every subscription');

    await ok(asOwner('PATCH', `/channel_folders/${folder}`, { params: { is_archived: true } }));
    t.ok((await streams()).every((s) => 'folder_id' in s), 'an archived folder still counts: the shapes do not change back');
  });
});
