import t from 'tap';
import { startTestServer } from '../../helpers/server.js';
import { fetchRaw, sendFiles } from '../../helpers/upload.js';
import { startWorld } from '../streams/world.js';
import { dimensions, greenJpeg, part, redPng } from './images.js';

const error = (msg: string, code = 'BAD_REQUEST') => ({ result: 'error', msg, code });
const UPLOADED = /^\/user_avatars\/(\d+)\/([0-9a-f]{24})\.png\?version=(\d+)$/;

t.test('POST and DELETE /users/me/avatar', async (t) => {
  const w = await startWorld(t);
  const { ts, root, other } = w;
  const png = await redPng();
  const hamletView = async () => (await w.as(root.othello)('GET', `/users/${root.hamlet.userId}`, { params: { client_gravatar: true } })).body.user;

  t.test('errors, in the reference order; nothing changes', async (t) => {
    let res = await sendFiles(ts, 'POST', '/users/me/avatar', [], { auth: root.hamlet });
    t.same([res.status, res.body], [400, error('You must upload exactly one avatar.')], 'no file');
    res = await sendFiles(ts, 'POST', '/users/me/avatar', [part(png, 'a.png'), part(png, 'b.png')], { auth: root.hamlet });
    t.same(res.body, error('You must upload exactly one avatar.'), 'two files');
    res = await sendFiles(ts, 'POST', '/users/me/avatar', [part(Buffer.concat([png, Buffer.alloc(5 * 1024 * 1024)]))], { auth: root.hamlet });
    t.same(res.body, error('Uploaded file is larger than the allowed limit of 5 MiB'), 'over 5 MiB');
    res = await sendFiles(ts, 'POST', '/users/me/avatar', [part('hello', 'me.txt', 'text/plain')], { auth: root.hamlet });
    t.same(res.body, error('Invalid image format', 'BAD_IMAGE'), 'a text file');
    res = await sendFiles(ts, 'POST', '/users/me/avatar', [part('not a png')], { auth: root.hamlet });
    t.same(res.body, error('Could not decode image; did you upload an image file?', 'BAD_IMAGE'), 'bytes that are no image');
    const svg = '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>';
    res = await sendFiles(ts, 'POST', '/users/me/avatar', [part(svg)], { auth: root.hamlet });
    t.same(res.body, error('Could not decode image; did you upload an image file?', 'BAD_IMAGE'), 'an SVG claiming to be a PNG is not decoded');
    const view = await hamletView();
    t.same([view.avatar_url, view.avatar_version], [null, 1], 'still Gravatar (null with client_gravatar), version 1');
  });

  let url = '';
  t.test('an upload: avatar_source U, version bumped, the image served at avatar_url', async (t) => {
    const res = await sendFiles(ts, 'POST', '/users/me/avatar', [part(png)], { auth: root.hamlet });
    t.equal(res.status, 200, 'uploaded');
    url = res.body.avatar_url;
    const m = UPLOADED.exec(url);
    t.ok(m, `avatar_url ${url} is an uploaded avatar's`);
    t.equal(m?.[3], '2', 'avatar_version 2');
    const view = await hamletView();
    t.same([view.avatar_url, view.avatar_version], [url, 2], 'GET /users/{id} gives the URL even with client_gravatar');
    const list = (await w.as(root.othello)('GET', '/users', { params: { client_gravatar: true } })).body.members.find((u: { user_id: number }) => u.user_id === root.hamlet.userId);
    t.equal(list.avatar_url, url, 'GET /users too');
    const reg = (await w.as(root.hamlet)('POST', '/register', { params: { fetch_event_types: ['realm_user'] } })).body;
    t.same([reg.avatar_source, reg.avatar_url, reg.avatar_url_medium], ['U', url, url.replace('.png?', '-medium.png?')], 'the user\'s own /register fields');
    t.equal(reg.realm_users.find((u: { user_id: number }) => u.user_id === root.hamlet.userId).avatar_url, url, 'realm_users');

    const small = await fetchRaw(ts, url.split('?')[0]);
    t.equal(small.status, 200, 'served without credentials');
    t.equal(small.headers['content-type'], 'image/png', 'as PNG');
    t.same(await dimensions(small.body), { width: 100, height: 100, format: 'png' }, 'scaled to 100x100');
    const medium = await fetchRaw(ts, url.split('?')[0].replace('.png', '-medium.png'));
    t.same(await dimensions(medium.body), { width: 500, height: 500, format: 'png' }, 'the medium size is 500x500');
  });

  t.test('messages carry the uploaded avatar, whatever client_gravatar says', async (t) => {
    const sent = await w.as(root.hamlet)('POST', '/messages', { params: { type: 'stream', to: 'general', topic: 'avatars', content: 'look' } });
    const got = await w.as(root.othello)('GET', '/messages', { params: { anchor: sent.body.id, num_before: 0, num_after: 0, client_gravatar: true } });
    t.equal(got.body.messages[0].avatar_url, url, 'avatar_url of the message');
  });

  t.test('realm isolation: another realm neither serves nor shows it', async (t) => {
    const there = await fetchRaw(ts, url.split('?')[0], { host: w.otherHost });
    t.equal(there.status, 404, "not at the other realm's host");
    const theirs = await w.asOther(other.hamlet)('GET', '/users/me');
    t.not(theirs.body.avatar_url, url, "the other realm's hamlet keeps his own avatar");
    t.equal(theirs.body.avatar_version, 1, 'unchanged there');
  });

  t.test('a new upload gets a new URL; the old one is gone', async (t) => {
    const res = await sendFiles(ts, 'POST', '/users/me/avatar', [part(await greenJpeg(), 'me.jpg', 'image/jpeg')], { auth: root.hamlet });
    t.equal(res.status, 200, 'a JPEG is accepted');
    t.not(res.body.avatar_url.split('?')[0], url.split('?')[0], 'another file name');
    t.equal((await fetchRaw(ts, url.split('?')[0])).status, 404, 'the old image is deleted');
    t.equal((await fetchRaw(ts, res.body.avatar_url.split('?')[0])).status, 200, 'the new one is served');
    url = res.body.avatar_url;
  });

  t.test('DELETE: back to Gravatar; a second DELETE changes nothing', async (t) => {
    let res = await w.as(root.hamlet)('DELETE', '/users/me/avatar');
    t.equal(res.status, 200, 'deleted');
    t.match(res.body.avatar_url, /^https:\/\/secure\.gravatar\.com\/avatar\/[0-9a-f]{32}\?d=identicon&version=4$/, 'the Gravatar URL, version 4');
    t.equal((await fetchRaw(ts, url.split('?')[0])).status, 404, 'the image is deleted');
    res = await w.as(root.hamlet)('DELETE', '/users/me/avatar');
    t.match(res.body.avatar_url, /version=4$/, 'no new version for a user already on Gravatar');
  });

  t.test('avatar_changes_disabled binds everyone but administrators; guests and bots may otherwise', async (t) => {
    t.equal((await w.as(root.owner)('PATCH', '/realm', { params: { avatar_changes_disabled: true } })).status, 200, 'disabled');
    for (const who of ['hamlet', 'polonius', 'bot'] as const) {
      const res = await sendFiles(ts, 'POST', '/users/me/avatar', [part(png)], { auth: root[who] });
      t.same(res.body, error('Avatar changes are disabled in this organization.'), `${who} may not upload`);
      const del = await w.as(root[who])('DELETE', '/users/me/avatar');
      t.same(del.body, error('Avatar changes are disabled in this organization.'), `${who} may not delete`);
    }
    for (const who of ['admin', 'owner'] as const) {
      const res = await sendFiles(ts, 'POST', '/users/me/avatar', [part(png)], { auth: root[who] });
      t.equal(res.status, 200, `${who} may`);
    }
    t.equal((await w.as(root.owner)('PATCH', '/realm', { params: { avatar_changes_disabled: false } })).status, 200, 'enabled again');
    for (const who of ['polonius', 'bot'] as const) {
      const res = await sendFiles(ts, 'POST', '/users/me/avatar', [part(png)], { auth: root[who] });
      t.equal(res.status, 200, `${who} may upload their own`);
    }
    const res = await sendFiles(ts, 'POST', '/users/me/avatar', [part(png)], { auth: null });
    t.equal(res.status, 401, 'no credentials, no upload');
  });

  t.test('the avatar survives a restart', async (t) => {
    const res = await sendFiles(ts, 'POST', '/users/me/avatar', [part(png)], { auth: root.othello });
    const before = res.body.avatar_url;
    await ts.close();
    const again = await startTestServer(t, {}, { dataDir: ts.dataDir });
    const me = await again.request('GET', '/users/me', { auth: root.othello });
    t.same([me.body.avatar_url, me.body.avatar_version], [before, 2], 'the same URL and version');
    const img = await fetchRaw(again, before.split('?')[0]);
    t.same(await dimensions(img.body), { width: 100, height: 100, format: 'png' }, 'the same image served');
  });
});
