import t from 'tap';
import { fetchRaw, sendFiles } from '../../helpers/upload.js';
import { startWorld } from '../streams/world.js';
import { dimensions, part, redPng } from './images.js';

const error = (msg: string, code = 'BAD_REQUEST') => ({ result: 'error', msg, code });

t.test('bot avatars: POST /bots and PATCH /bots/{bot_id} store and serve the file', async (t) => {
  const w = await startWorld(t);
  const { ts, root } = w;
  const png = await redPng();
  const fields = (short: string) => ({ full_name: `Bot ${short}`, short_name: short });

  t.test('POST /bots with an image', async (t) => {
    const res = await sendFiles(ts, 'POST', '/bots', [part(png)], { auth: root.hamlet, fields: fields('pic') });
    t.equal(res.status, 200, 'created');
    t.match(res.body.avatar_url, /^\/user_avatars\/\d+\/[0-9a-f]{24}\.png\?version=\d+$/, 'an uploaded avatar URL');
    const img = await fetchRaw(ts, res.body.avatar_url.split('?')[0]);
    t.same(await dimensions(img.body), { width: 100, height: 100, format: 'png' }, 'served, scaled');
    const listed = (await w.as(root.hamlet)('GET', '/bots')).body.bots.find((b: { username: string }) => b.username.startsWith('pic-bot@'));
    t.equal(listed.avatar_url, res.body.avatar_url, 'GET /bots gives it');
    const user = (await w.as(root.othello)('GET', `/users/${res.body.user_id}`)).body.user;
    t.equal(user.avatar_url, res.body.avatar_url, 'everyone sees it');
  });

  t.test('POST /bots refuses a bad file and creates nothing', async (t) => {
    let res = await sendFiles(ts, 'POST', '/bots', [part('junk')], { auth: root.hamlet, fields: fields('junk') });
    t.same(res.body, error('Could not decode image; did you upload an image file?', 'BAD_IMAGE'), 'not an image');
    res = await sendFiles(ts, 'POST', '/bots', [part(png, 'a.png'), part(png, 'b.png')], { auth: root.hamlet, fields: fields('two') });
    t.same(res.body, error('You may only upload one file at a time'), 'two files');
    const bots = (await w.as(root.hamlet)('GET', '/bots')).body.bots.map((b: { username: string }) => b.username.split('-bot@')[0]);
    t.notOk(bots.includes('junk') || bots.includes('two'), 'no bot was made');
  });

  t.test('PATCH /bots/{bot_id} with an image; its owner only among members', async (t) => {
    const res = await sendFiles(ts, 'PATCH', `/bots/${root.bot.userId}`, [part(png)], { auth: root.hamlet });
    t.equal(res.status, 200, 'the owner may');
    t.match(res.body.avatar_url, /^\/user_avatars\//, 'uploaded');
    t.equal((await fetchRaw(ts, res.body.avatar_url.split('?')[0])).status, 200, 'served');
    const other = await sendFiles(ts, 'PATCH', `/bots/${root.bot.userId}`, [part(png)], { auth: root.othello });
    t.equal(other.status, 400, 'another member may not');
    const guest = await sendFiles(ts, 'PATCH', `/bots/${root.bot.userId}`, [part(png)], { auth: root.polonius });
    t.equal(guest.status, 400, 'nor a guest');
    const admin = await sendFiles(ts, 'PATCH', `/bots/${root.bot.userId}`, [part(png)], { auth: root.admin });
    t.equal(admin.status, 200, 'an administrator may');
    t.equal((await fetchRaw(ts, res.body.avatar_url.split('?')[0])).status, 404, 'the replaced image is gone');
    const two = await sendFiles(ts, 'PATCH', `/bots/${root.bot.userId}`, [part(png, 'a.png'), part(png, 'b.png')], { auth: root.hamlet });
    t.same(two.body, error('You may only upload one file at a time'), 'two files');
  });
});
