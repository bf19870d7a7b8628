import t from 'tap';
import { convergenceHarness } from '../../helpers/convergence.js';
import { startTestServer } from '../../helpers/server.js';
import { listen } from '../streams/queues.js';
import { startWorld, streamId, subscribe } from '../streams/world.js';

/**
 * Channel folders (feature levels 389, 410, 414, 418). Their responses are not in the 10.2
 * description (see DEVIATIONS in helpers/openapi.ts), so their shapes are asserted here, after
 * the reference's current source.
 */
const FOLDER_KEYS = ['creator_id', 'date_created', 'description', 'id', 'is_archived', 'name', 'order', 'rendered_description'];
const ADMIN_ONLY = { result: 'error', msg: 'Must be an organization administrator', code: 'UNAUTHORIZED_PRINCIPAL' };

t.test('channel folders', async (t) => {
  const w = await startWorld(t);
  const { owner, admin, hamlet, polonius } = w.root;
  const folders = async (include_archived = false) => (await w.as(hamlet)('GET', '/channel_folders', { params: { include_archived } })).body.channel_folders as Record<string, any>[];
  const create = (name: string, description = '', who = admin) => w.as(who)('POST', '/channel_folders/create', { params: { name, description } });

  let work = 0;
  t.test('creating, and reading them back', async (t) => {
    const q = await listen(w.as(polonius), { event_types: ['channel_folder'] });
    const res = await create('Work', 'Things **to do**');
    t.same(Object.keys(res.body).sort(), ['channel_folder_id', 'msg', 'result'], 'the response: the new id');
    work = res.body.channel_folder_id;
    const [folder] = await folders();
    t.same(Object.keys(folder).sort(), FOLDER_KEYS, 'every field of the reference ChannelFolder');
    t.match(folder, { id: work, name: 'Work', description: 'Things **to do**', rendered_description: '<p>Things <strong>to do</strong></p>', order: work, creator_id: admin.userId, is_archived: false }, 'as created');
    t.type(folder.date_created, 'number', 'date_created in seconds');
    const events = await q.drain(t);
    t.same(events, [{ type: 'channel_folder', op: 'add', channel_folder: folder }], 'everyone, guests included, hears of it');
    const state = (await w.as(polonius)('POST', '/register', { params: { fetch_event_types: ['channel_folders'] } })).body;
    t.same(state.channel_folders, [folder], 'in /register');
    t.match(state, { max_channel_folder_name_length: 60, max_channel_folder_description_length: 1024 }, 'with their limits (level 410): the client named folders');
    t.equal(state.realm_name, undefined, 'and nothing else of the realm section');
    const limits = (await w.as(polonius)('POST', '/register', { params: { fetch_event_types: ['realm'] } })).body;
    t.match(limits, { max_channel_folder_name_length: 60, max_channel_folder_description_length: 1024 }, 'the limits (level 410)');
  });

  t.test('errors', async (t) => {
    const cases: [string, Record<string, unknown>, Record<string, unknown>][] = [
      ['an empty name', { name: '', description: '' }, { msg: "Channel folder name can't be empty.", code: 'BAD_REQUEST' }],
      ['a blank name', { name: '   ', description: '' }, { msg: "Channel folder name can't be empty.", code: 'BAD_REQUEST' }],
      ['a name in use, case aside', { name: 'WORK', description: '' }, { msg: 'Channel folder name already in use', code: 'BAD_REQUEST' }],
      ['a control character', { name: 'a\u0007b', description: '' }, { msg: 'Invalid character in channel folder name, at position 2.' }],
      ['a name over 60 characters', { name: 'n'.repeat(61), description: '' }, { msg: 'name is too long (limit: 60 characters)', code: 'REQUEST_VARIABLE_INVALID' }],
      ['a description over 1024', { name: 'Long', description: 'd'.repeat(1025) }, { msg: 'description is too long (limit: 1024 characters)' }],
      ['no description', { name: 'Nodesc' }, { msg: "Missing 'description' argument", code: 'REQUEST_VARIABLE_MISSING' }],
    ];
    for (const [name, params, expected] of cases) {
      const res = await w.as(admin)('POST', '/channel_folders/create', { params });
      t.equal(res.status, 400, `${name}: 400`);
      t.match(res.body, { result: 'error', ...expected }, name);
    }
    t.equal((await create('n'.repeat(60))).status, 200, 'a name of 60 characters is fine');
    for (const [role, who] of [['member', hamlet], ['guest', polonius]] as const) {
      t.same((await create('Mine', '', who)).body, ADMIN_ONLY, `${role}: may not create`);
      t.same((await w.as(who)('PATCH', `/channel_folders/${work}`, { params: { name: 'x' } })).body, ADMIN_ONLY, `${role}: may not edit`);
      t.same((await w.as(who)('PATCH', '/channel_folders', { params: { order: [work] } })).body, ADMIN_ONLY, `${role}: may not reorder`);
    }
    t.match((await w.as(admin)('PATCH', '/channel_folders/9999', { params: { name: 'x' } })).body, { msg: 'Invalid channel folder ID' }, 'an unknown folder');
    t.equal((await folders()).length, 2, 'nothing else was made');
  });

  t.test('channels in folders', async (t) => {
    await subscribe(w.as(hamlet), ['projects'], { folder_id: work });
    const projects = await streamId(w.as(owner), 'projects');
    const stream = (await w.as(hamlet)('GET', `/streams/${projects}`)).body.stream;
    t.equal(stream.folder_id, work, 'a channel created in a folder');
    const general = await streamId(w.as(owner), 'general');
    t.equal((await w.as(hamlet)('GET', `/streams/${general}`)).body.stream.folder_id, null, 'others are in none');
    const bad = await subscribe(w.as(hamlet), ['x'], { folder_id: 9999 }).catch((e: Error) => e.message);
    t.match(bad, /Invalid channel folder ID/, 'creating into an unknown folder');
    const q = await listen(w.as(polonius), { event_types: ['stream'] });
    t.equal((await w.as(admin)('PATCH', `/streams/${general}`, { params: { folder_id: work } })).status, 200, 'moved into the folder');
    t.match(await q.drain(t), [{ type: 'stream', op: 'update', property: 'folder_id', value: work, stream_id: general }], 'announced to those who see the channel');
    const subs = (await w.as(polonius)('GET', '/users/me/subscriptions')).body.subscriptions;
    t.equal(subs.find((s: { stream_id: number }) => s.stream_id === general).folder_id, work, 'subscriptions show it');
    t.match((await w.as(admin)('PATCH', `/streams/${general}`, { params: { folder_id: 9999 } })).body, { msg: 'Invalid channel folder ID' }, 'an unknown folder');
    t.match((await w.as(hamlet)('PATCH', `/streams/${general}`, { params: { folder_id: null } })).body, { msg: 'You do not have permission to administer this channel.' }, 'only who administers the channel');
    t.equal((await w.as(admin)('PATCH', `/streams/${general}`, { params: { folder_id: null } })).status, 200, 'out of the folder again');
    t.match(await q.drain(t), [{ property: 'folder_id', value: null }], 'with null');
  });

  t.test('editing, archiving and reordering', async (t) => {
    const q = await listen(w.as(hamlet), { event_types: ['channel_folder'] });
    await w.as(admin)('PATCH', `/channel_folders/${work}`, { params: { name: 'Work stuff', description: 'Now *this*', is_archived: false } });
    t.same(await q.drain(t), [
      { type: 'channel_folder', op: 'update', channel_folder_id: work, data: { name: 'Work stuff' } },
      { type: 'channel_folder', op: 'update', channel_folder_id: work, data: { description: 'Now *this*', rendered_description: '<p>Now <em>this</em></p>' } },
    ], 'one event per change; an unchanged archival state sends none');
    t.match((await w.as(admin)('PATCH', `/channel_folders/${work}`, { params: { is_archived: true } })).body, { msg: 'You need to remove all the channels from this folder to archive it.' }, 'a folder with channels stays');
    const projects = await streamId(w.as(owner), 'projects');
    await w.as(admin)('PATCH', `/streams/${projects}`, { params: { folder_id: null } });
    t.equal((await w.as(admin)('PATCH', `/channel_folders/${work}`, { params: { is_archived: true } })).status, 200, 'archived once empty');
    t.same((await q.drain(t)).map((e) => e.data), [{ is_archived: true }], 'announced');
    t.same((await folders()).map((f) => f.id), [work + 1], 'GET leaves archived folders out');
    t.same((await folders(true)).map((f) => [f.id, f.is_archived]), [[work, true], [work + 1, false]], 'unless asked');
    t.equal((await create('work stuff')).body.msg, 'Channel folder name already in use', 'an archived folder keeps its name');

    const third = (await create('Third')).body.channel_folder_id;
    t.match((await w.as(admin)('PATCH', '/channel_folders', { params: { order: [third, work] } })).body, { msg: 'Invalid order mapping.' }, 'the order must name every folder');
    await q.drain(t);
    t.equal((await w.as(owner)('PATCH', '/channel_folders', { params: { order: [third, work, work + 1] } })).status, 200, 'reordered');
    t.same(await q.drain(t), [{ type: 'channel_folder', op: 'reorder', order: [third, work, work + 1] }], 'the reorder event (level 418)');
    t.same((await folders(true)).map((f) => [f.id, f.order]), [[third, 0], [work, 1], [work + 1, 2]], 'listed in the new order, 0-indexed');
    t.equal((await w.as(admin)('PATCH', `/channel_folders/${work}`, { params: { is_archived: false } })).status, 200, 'unarchived');
  });

  t.test('clients applying the events converge', async (t) => {
    const { converges } = convergenceHarness(t, w.ts);
    const viewers = [owner, hamlet, polonius];
    const sections = ['channel_folders'];
    let id = 0;
    await converges('a new folder', async () => (id = (await create('Converging')).body.channel_folder_id), viewers, { sections });
    await converges('renamed', () => w.as(admin)('PATCH', `/channel_folders/${id}`, { params: { name: 'Converged', description: 'd' } }), viewers, { sections });
    await converges('archived', () => w.as(admin)('PATCH', `/channel_folders/${id}`, { params: { is_archived: true } }), viewers, { sections });
    const all = (await folders(true)).map((f) => f.id).reverse();
    await converges('reordered', () => w.as(admin)('PATCH', '/channel_folders', { params: { order: all } }), viewers, { sections });
    const general = await streamId(w.as(owner), 'general');
    await converges('a channel put in a folder', () => w.as(admin)('PATCH', `/streams/${general}`, { params: { folder_id: all[1] } }), viewers, { sections });
  });

  t.test('folders survive a restart', async (t) => {
    const before = await folders(true);
    await w.ts.close();
    const ts = await startTestServer(t, {}, { dataDir: w.ts.dataDir });
    t.same((await ts.as(hamlet)('GET', '/channel_folders', { params: { include_archived: true } })).body.channel_folders, before, 'the same folders, in the same order');
    const next = await ts.as(admin)('POST', '/channel_folders/create', { params: { name: 'After', description: '' } });
    t.ok(next.body.channel_folder_id > Math.max(...before.map((f) => f.id)), 'ids keep increasing');
    const general = await streamId(ts.as(owner), 'general');
    t.type((await ts.as(hamlet)('GET', `/streams/${general}`)).body.stream.folder_id, 'number', "and a channel's folder");
  });
});
