import t from 'tap';
import { ROLE } from '../../../src/model/types.js';
import { createUser, startTestServer } from '../../helpers/server.js';
import { GIF_ANIMATED, PNG, png, uploadEmoji } from './fixtures.js';

t.test('custom emoji: errors and permissions', async (t) => {
  const ts = await startTestServer(t);
  const ann = await createUser(ts, 'ann@example.com', 'Ann');
  const bob = await createUser(ts, 'bob@example.com', 'Bob');
  const gus = await createUser(ts, 'gus@example.com', 'Gus');
  const ada = await createUser(ts, 'ada@example.com', 'Ada');
  await ts.request('PATCH', `/users/${gus.userId}`, { params: { role: ROLE.guest } });
  await ts.request('PATCH', `/users/${ada.userId}`, { params: { role: ROLE.administrator } });
  const list = async () => (await ts.request('GET', '/realm/emoji')).body.emoji as Record<string, { name: string; deactivated: boolean; author_id: number }>;
  const error = (msg: string, code = 'BAD_REQUEST') => ({ result: 'error', msg, code });

  t.test('POST /realm/emoji/{emoji_name}: names', async (t) => {
    const cases: [string, string][] = [
      ['Green', 'Emoji names must contain only lowercase English letters, digits, spaces, dashes, and underscores.'],
      ['tick!', 'Emoji names must contain only lowercase English letters, digits, spaces, dashes, and underscores.'],
      ['tick_', 'Emoji names must end with either a letter or digit.'],
      ['tick-', 'Emoji names must end with either a letter or digit.'],
      ['   ', 'Emoji name is missing'],
    ];
    for (const [name, msg] of cases) {
      const res = await uploadEmoji(ts, name, [png()], { auth: ann });
      t.same([res.status, res.body], [400, error(msg)], `${JSON.stringify(name)}: ${msg}`);
    }
    t.same(await list(), {}, 'nothing was added');
  });

  t.test('POST /realm/emoji/{emoji_name}: files', async (t) => {
    let res = await uploadEmoji(ts, 'tick', [], { auth: ann });
    t.same(res.body, error('You must upload exactly one file.'), 'no file');
    res = await uploadEmoji(ts, 'tick', [png('a.png'), png('b.png')], { auth: ann });
    t.same(res.body, error('You must upload exactly one file.'), 'two files');
    res = await uploadEmoji(ts, 'tick', [png('big.png', Buffer.concat([PNG, Buffer.alloc(5 * 1024 * 1024)]))], { auth: ann });
    t.same(res.body, error('Uploaded file is larger than the allowed limit of 5 MiB'), 'over 5 MiB');
    res = await uploadEmoji(ts, 'tick', [{ filename: 'tick.txt', content: 'not an image', contentType: 'text/plain' }], { auth: ann });
    t.same(res.body, error('Invalid image format', 'BAD_IMAGE'), 'a text file');
    res = await uploadEmoji(ts, 'tick', [{ filename: 'tick.svg', content: '<svg/>', contentType: 'image/svg+xml' }], { auth: ann });
    t.same(res.body, error('Invalid image format', 'BAD_IMAGE'), 'SVG is refused, as in the reference');
    res = await uploadEmoji(ts, 'tick', [png('tick.png', Buffer.from('not a png'))], { auth: ann });
    t.same(res.body, error('Could not decode image; did you upload an image file?', 'BAD_IMAGE'), 'bytes that are no image');
    res = await uploadEmoji(ts, 'tick', [png('tick.png', GIF_ANIMATED.subarray(0, 40), 'image/gif')], { auth: ann });
    t.equal(res.body.code, 'BAD_IMAGE', 'a truncated GIF');
    t.same(await list(), {}, 'nothing was added');
  });

  t.test('POST /realm/emoji/{emoji_name}: who may add', async (t) => {
    let res = await uploadEmoji(ts, 'tick', [png()], { auth: gus });
    t.same(res.body, error('Not allowed for guest users'), 'a guest');
    res = await uploadEmoji(ts, 'smile', [png()], { auth: ann });
    t.same(res.body, error('Only administrators can override built-in emoji.'), 'a member may not take a built-in name');
    res = await uploadEmoji(ts, 'thumbs_up', [png()], { auth: ann });
    t.same(res.body, error('Only administrators can override built-in emoji.'), 'nor an alias');
    res = await uploadEmoji(ts, 'thumbs_up', [png()], { auth: ada });
    t.equal(res.status, 200, 'an administrator may');

    const groups = (await ts.request('POST', '/register', { params: { fetch_event_types: JSON.stringify(['realm_user_groups']) } })).body.realm_user_groups as { id: number; name: string }[];
    const admins = groups.find((g) => g.name === 'role:administrators')!.id;
    const members = groups.find((g) => g.name === 'role:members')!.id;
    await ts.request('PATCH', '/realm', { params: { can_add_custom_emoji_group: JSON.stringify({ new: admins }) } });
    res = await uploadEmoji(ts, 'tick', [png()], { auth: ann });
    t.same(res.body, error('Insufficient permission'), 'can_add_custom_emoji_group = administrators: a member may not');
    res = await uploadEmoji(ts, 'ada_tick', [png()], { auth: ada });
    t.equal(res.status, 200, 'an administrator may');
    await ts.request('PATCH', '/realm', { params: { can_add_custom_emoji_group: JSON.stringify({ new: members }) } });
    res = await uploadEmoji(ts, 'tick', [png()], { auth: ann });
    t.equal(res.status, 200, 'back to members: Ann adds :tick:');
    res = await uploadEmoji(ts, 'tick', [png()], { auth: bob });
    t.same(res.body, error('A custom emoji with this name already exists.'), 'a name in use');
  });

  t.test('DELETE /realm/emoji/{emoji_name}: the author or an administrator', async (t) => {
    let res = await ts.as(ann)('DELETE', '/realm/emoji/no_such');
    t.same([res.status, res.body], [404, error("Emoji 'no_such' does not exist")], 'an unknown name: 404, as since feature level 190');
    res = await ts.as(bob)('DELETE', '/realm/emoji/tick');
    t.same(res.body, error('Must be an organization administrator or emoji author'), 'another member');
    res = await ts.as(gus)('DELETE', '/realm/emoji/tick');
    t.same(res.body, error('Must be an organization administrator or emoji author'), 'a guest');
    res = await ts.as(ann)('DELETE', '/realm/emoji/ada_tick');
    t.same(res.body, error('Must be an organization administrator or emoji author'), 'a member, for an administrator\'s emoji');
    res = await ts.as(ann)('DELETE', '/realm/emoji/tick');
    t.equal(res.status, 200, 'the author');
    res = await ts.as(ada)('DELETE', '/realm/emoji/thumbs_up');
    t.equal(res.status, 200, 'an administrator, her own');
    await uploadEmoji(ts, 'bobs', [png()], { auth: bob });
    res = await ts.as(ada)('DELETE', '/realm/emoji/bobs');
    t.equal(res.status, 200, 'an administrator, someone else\'s');
    res = await ts.as(ann)('DELETE', '/realm/emoji/tick');
    t.equal(res.status, 404, 'a deactivated emoji is gone for DELETE');
    const byName = Object.values(await list()).map((e) => [e.name, e.deactivated]);
    t.same(byName.sort(), [['ada_tick', false], ['bobs', true], ['thumbs_up', true], ['tick', true]], 'deactivated emoji stay in the list, marked');
    res = await uploadEmoji(ts, 'tick', [png()], { auth: bob });
    t.equal(res.status, 200, 'a deactivated emoji\'s name may be used again');
    t.equal(Object.values(await list()).filter((e) => e.name === 'tick').length, 2, 'as a new emoji');
  });
});
