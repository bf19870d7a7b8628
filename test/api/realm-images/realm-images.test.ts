import t from 'tap';
import { fetchRaw, sendFiles } from '../../helpers/upload.js';
import { dimensions, greenJpeg, part, redPng } from '../avatars/images.js';
import { listen } from '../streams/queues.js';
import { startWorld } from '../streams/world.js';

/**
 * The organization's icon and logos: POST and DELETE /realm/icon and /realm/logo, the images at
 * their URLs, the realm update_dict events, /register and /server_settings.
 */
const error = (msg: string, code = 'BAD_REQUEST') => ({ result: 'error', msg, code });

t.test('realm icon and logos', async (t) => {
  const w = await startWorld(t);
  const { ts, root } = w;
  const { owner, admin, hamlet } = root;
  const png = await redPng();
  const wide = await greenJpeg();
  const realmState = async () => (await w.as(hamlet)('POST', '/register', { params: { fetch_event_types: ['realm'] } })).body;

  t.test('errors and permissions', async (t) => {
    let res = await sendFiles(ts, 'POST', '/realm/icon', [part(png)], { auth: hamlet });
    t.same(res.body, error('Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL'), 'members may not');
    res = await sendFiles(ts, 'POST', '/realm/icon', [], { auth: admin });
    t.same(res.body, error('You must upload exactly one icon.'), 'no file');
    res = await sendFiles(ts, 'POST', '/realm/logo', [part(png), part(png, 'b.png')], { auth: admin, fields: { night: 'false' } });
    t.same(res.body, error('You must upload exactly one logo.'), 'two files');
    res = await sendFiles(ts, 'POST', '/realm/logo', [part(png)], { auth: admin });
    t.same([res.status, res.body.code], [400, 'REQUEST_VARIABLE_MISSING'], 'night is required');
    res = await sendFiles(ts, 'POST', '/realm/icon', [part(Buffer.concat([png, Buffer.alloc(5 * 1024 * 1024)]))], { auth: admin });
    t.same(res.body, error('Uploaded file is larger than the allowed limit of 5 MiB'), 'over 5 MiB');
    res = await sendFiles(ts, 'POST', '/realm/icon', [part('not an image')], { auth: admin });
    t.same(res.body, error('Could not decode image; did you upload an image file?', 'BAD_IMAGE'), 'no image');
    const state = await realmState();
    t.same([state.realm_icon_source, state.realm_logo_source, state.realm_night_logo_source], ['G', 'D', 'D'], 'nothing changed');
  });

  let iconUrl = '';
  t.test('an icon', async (t) => {
    const members = await listen(w.as(hamlet), { event_types: ['realm'] });
    const res = await sendFiles(ts, 'POST', '/realm/icon', [part(png)], { auth: admin });
    t.equal(res.status, 200, 'uploaded');
    iconUrl = res.body.icon_url;
    t.match(iconUrl, /^\/user_avatars\/\d+\/realm\/icon\.png\?version=\d+$/, 'its URL, with a version');
    t.same(await members.drain(t), [{ type: 'realm', op: 'update_dict', property: 'icon', data: { icon_source: 'U', icon_url: iconUrl } }], 'everyone hears of it');
    const image = await fetchRaw(ts, iconUrl);
    t.equal(image.status, 200, 'served without credentials');
    t.same(await dimensions(image.body), { width: 100, height: 100, format: 'png' }, 'a 100x100 PNG');
    const state = await realmState();
    t.same([state.realm_icon_url, state.realm_icon_source], [iconUrl, 'U'], 'in /register');
    t.equal((await ts.request('GET', '/server_settings', { auth: null })).body.realm_icon, iconUrl, 'and in /server_settings');
  });

  t.test('logos, day and night', async (t) => {
    let res = await sendFiles(ts, 'POST', '/realm/logo', [part(wide, 'logo.jpg', 'image/jpeg')], { auth: owner, fields: { night: 'false' } });
    t.same(res.body, { result: 'success', msg: '' }, 'a logo');
    res = await sendFiles(ts, 'POST', '/realm/logo', [part(png)], { auth: owner, fields: { night: 'true' } });
    t.equal(res.status, 200, 'a night logo');
    const state = await realmState();
    t.match(state.realm_logo_url, /\/realm\/logo\.png\?version=/, 'the logo URL');
    t.match(state.realm_night_logo_url, /\/realm\/night_logo\.png\?version=/, 'the night logo URL');
    t.same(await dimensions((await fetchRaw(ts, state.realm_logo_url)).body), { width: 40, height: 90, format: 'png' }, 'a small logo is not enlarged');
    t.same(await dimensions((await fetchRaw(ts, state.realm_night_logo_url)).body), { width: 150, height: 100, format: 'png' }, 'a larger one fits in 800x100, its aspect kept');
    const members = await listen(w.as(hamlet), { event_types: ['realm'] });
    t.equal((await w.as(admin)('DELETE', '/realm/logo', { params: { night: true } })).status, 200, 'the night logo removed');
    t.same(await members.drain(t), [{ type: 'realm', op: 'update_dict', property: 'night_logo', data: { night_logo_source: 'D', night_logo_url: '/static/images/logo/zulip-org-logo.svg?version=0' } }], 'back to the default, told to everyone');
    t.equal((await fetchRaw(ts, state.realm_night_logo_url)).status, 404, 'its image is gone');
  });

  t.test('removing the icon', async (t) => {
    const res = await w.as(admin)('DELETE', '/realm/icon');
    t.equal(res.status, 200, 'removed');
    t.notMatch(res.body.icon_url, /\/realm\/icon\.png/, 'the default icon');
    t.equal((await realmState()).realm_icon_source, 'G', 'source G');
    t.equal((await fetchRaw(ts, iconUrl)).status, 404, 'the old image is gone');
    t.equal((await fetchRaw(ts, iconUrl, { host: w.otherHost })).status, 404, 'and was never at another realm');
  });
});
