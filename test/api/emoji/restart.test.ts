import t from 'tap';
import { createUser, startTestServer } from '../../helpers/server.js';
import { fetchRaw } from '../../helpers/upload.js';
import { restart } from '../users/restart.js';
import { GIF_ANIMATED, GIF_FIRST_FRAME, PNG, png, uploadEmoji } from './fixtures.js';

t.test('custom emoji survive a restart: records, images, stills, deactivation, rendering', async (t) => {
  const ts = await startTestServer(t);
  const ann = await createUser(ts, 'ann@example.com', 'Ann');
  await uploadEmoji(ts, 'green_tick', [png()], { auth: ann });
  await uploadEmoji(ts, 'dance', [{ filename: 'dance.gif', content: GIF_ANIMATED, contentType: 'image/gif' }], { auth: ann });
  await uploadEmoji(ts, 'gone', [png()], { auth: ann });
  await ts.as(ann)('DELETE', '/realm/emoji/gone');
  const before = (await ts.as(ann)('GET', '/realm/emoji')).body.emoji;

  await restart(t, ts, async () => undefined);

  const after = (await ts.as(ann)('GET', '/realm/emoji')).body.emoji;
  t.same(after, before, 'GET /realm/emoji lists the same emoji, deactivated one included');
  const byName = (name: string) => Object.values(after).find((e: any) => e.name === name) as { source_url: string; still_url: string };
  t.same((await fetchRaw(ts, byName('green_tick').source_url)).body, PNG, 'a still image is served');
  t.same((await fetchRaw(ts, byName('dance').source_url)).body, GIF_ANIMATED, 'an animation is served');
  t.same((await fetchRaw(ts, byName('dance').still_url)).body, GIF_FIRST_FRAME, 'and its still');
  const rendered = await ts.as(ann)('POST', '/messages/render', { params: { content: ':green_tick: :gone:' } });
  t.equal(rendered.body.rendered, `<p><img alt=":green_tick:" class="emoji" src="${byName('green_tick').source_url}" title="green tick"> :gone:</p>`, 'Markdown knows the active ones');
  const again = await uploadEmoji(ts, 'green_tick', [png()], { auth: ann });
  t.equal(again.body.msg, 'A custom emoji with this name already exists.', 'names are still taken');
  const fresh = await uploadEmoji(ts, 'new_one', [png()], { auth: ann });
  t.equal(fresh.status, 200, 'a new emoji after the restart');
  const ids = Object.keys((await ts.as(ann)('GET', '/realm/emoji')).body.emoji);
  t.equal(new Set(ids).size, 4, 'gets an id of its own');
});
