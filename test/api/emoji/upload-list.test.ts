import t from 'tap';
import { createUser, startTestServer } from '../../helpers/server.js';
import { fetchRaw } from '../../helpers/upload.js';
import { APNG, APNG_STILL, GIF_ANIMATED, GIF_FIRST_FRAME, PNG, WEBP_ANIMATED, WEBP_STILL, png, uploadEmoji } from './fixtures.js';

t.test('custom emoji: upload, list, images, rendering', async (t) => {
  const ts = await startTestServer(t);
  const ann = await createUser(ts, 'ann@example.com', 'Ann');
  const asAnn = ts.as(ann);

  t.test('POST /realm/emoji/{emoji_name}: a member adds one (can_add_custom_emoji_group is role:members)', async (t) => {
    const res = await uploadEmoji(ts, 'green tick', [png()], { auth: ann });
    t.same(res.body, { result: 'success', msg: '' }, 'the reference\'s empty success');
    const list = await asAnn('GET', '/realm/emoji');
    t.equal(list.status, 200, 'GET /realm/emoji: 200 (and the reference schema)');
    const [emoji] = Object.values(list.body.emoji) as any[];
    t.match(emoji, { name: 'green_tick', deactivated: false, author_id: ann.userId, still_url: null }, 'spaces become underscores; not animated: still_url null');
    t.equal(list.body.emoji[emoji.id], emoji, 'keyed by its id as a string');
    t.match(emoji.source_url, /^\/user_avatars\/\d+\/emoji\/images\/[0-9a-f]{8}\.png$/, 'the reference\'s source_url shape');

    const image = await fetchRaw(ts, emoji.source_url);
    t.equal(image.status, 200, 'the image is served at source_url, without credentials');
    t.equal(image.headers['content-type'], 'image/png', 'with its type');
    t.same(image.body, PNG, 'byte for byte as uploaded');
    t.equal((await fetchRaw(ts, emoji.source_url.replace(/[0-9a-f]{8}/, '00000000'))).status, 404, 'another name: 404');
  });

  t.test('animated emoji get a still_url serving the first frame', async (t) => {
    const cases: [string, Buffer, string, Buffer, string][] = [
      ['party_gif', GIF_ANIMATED, 'party.gif', GIF_FIRST_FRAME, 'image/gif'],
      ['party_apng', APNG, 'party.png', APNG_STILL, 'image/png'],
      ['party_webp', WEBP_ANIMATED, 'party.webp', WEBP_STILL, 'image/webp'],
    ];
    for (const [name, content, filename, still, type] of cases) {
      const res = await uploadEmoji(ts, name, [{ filename, content }], { auth: ann });
      t.equal(res.status, 200, `${name}: added (type guessed from the name when the part says octet-stream)`);
      const emoji = (Object.values((await asAnn('GET', '/realm/emoji')).body.emoji) as any[]).find((e) => e.name === name);
      t.match(emoji.still_url, /^\/user_avatars\/\d+\/emoji\/images\/still\/[0-9a-f]{8}\.[a-z]+$/, `${name}: still_url`);
      const full = await fetchRaw(ts, emoji.source_url);
      t.same(full.body, content, `${name}: source_url serves the animation`);
      const frame = await fetchRaw(ts, emoji.still_url);
      t.equal(frame.headers['content-type'], type, `${name}: the still has the image's type`);
      t.same(frame.body, still, `${name}: still_url serves the first frame`);
    }
  });

  t.test('POST /register: realm_emoji is the same list', async (t) => {
    const reg = await asAnn('POST', '/register', { params: { fetch_event_types: JSON.stringify(['realm_emoji']) } });
    const list = await asAnn('GET', '/realm/emoji');
    t.same(reg.body.realm_emoji, list.body.emoji, 'realm_emoji equals GET /realm/emoji');
    t.equal(Object.keys(reg.body.realm_emoji).length, 4, 'four emoji');
  });

  t.test('Markdown: :name: renders the reference\'s img, here and in POST /messages/render', async (t) => {
    const emoji = (Object.values((await asAnn('GET', '/realm/emoji')).body.emoji) as any[]).find((e) => e.name === 'green_tick');
    const img = `<img alt=":green_tick:" class="emoji" src="${emoji.source_url}" title="green tick">`;
    const sent = await asAnn('POST', '/messages', { params: { type: 'stream', to: 'general', topic: 'emoji', content: 'done :green_tick:' } });
    const msg = await asAnn('GET', `/messages/${sent.body.id}`);
    t.equal(msg.body.message.content, `<p>done ${img}</p>`, 'a sent message');
    const rendered = await asAnn('POST', '/messages/render', { params: { content: ':green_tick:' } });
    t.equal(rendered.body.rendered, `<p>${img}</p>`, 'a preview');
  });

  t.test('an administrator may override a built-in emoji name; Markdown then shows the custom one', async (t) => {
    const res = await uploadEmoji(ts, 'smile', [png()]);
    t.equal(res.status, 200, 'the owner adds :smile:');
    const emoji = (Object.values((await asAnn('GET', '/realm/emoji')).body.emoji) as any[]).find((e) => e.name === 'smile');
    const rendered = await asAnn('POST', '/messages/render', { params: { content: ':smile:' } });
    t.equal(rendered.body.rendered, `<p><img alt=":smile:" class="emoji" src="${emoji.source_url}" title="smile"></p>`, 'the custom image');
    await ts.request('DELETE', '/realm/emoji/smile');
    const after = await asAnn('POST', '/messages/render', { params: { content: ':smile:' } });
    t.equal(after.body.rendered, '<p><span aria-label="smile" class="emoji emoji-1f642" role="img" title="smile">:smile:</span></p>', 'deactivated: the built-in emoji again');
  });

  t.test('GET /realm/emoji needs credentials', async (t) => {
    const res = await ts.request('GET', '/realm/emoji', { auth: null });
    t.equal(res.status, 401, '401 without credentials');
  });
});
