import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { startTestServer } from '../../helpers/server.js';

t.test('linkifiers survive a restart', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'stoa-test-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const first = await startTestServer(t, {}, { dataDir });
  const add = async (pattern: string, url_template: string) => (await first.request('POST', '/realm/filters', { params: { pattern, url_template } })).body.id as number;
  const a = await add('#(?P<id>[0-9]+)', 'https://github.com/zulip/zulip/issues/{id}');
  const b = await add('ZUL-(?P<id>[0-9]+)', 'https://z.example.com/{id}');
  await first.request('PATCH', '/realm/linkifiers', { params: { ordered_linkifier_ids: [b, a] } });
  const before = (await first.request('GET', '/realm/linkifiers')).body.linkifiers;
  await first.close();

  const second = await startTestServer(t, {}, { dataDir });
  const after = await second.request('GET', '/realm/linkifiers');
  t.same(after.body.linkifiers, before, 'the same linkifiers, in the same order');
  t.same(after.body.linkifiers.map((l: { id: number }) => l.id), [b, a], 'the reordered order');
  const c = await second.request('POST', '/realm/filters', { params: { pattern: 'NEW-(?P<id>[0-9]+)', url_template: 'https://n.example.com/{id}' } });
  t.ok(c.body.id > Math.max(a, b), 'ids keep increasing after the restart');
  const sent = await second.request('POST', '/messages', { params: { type: 'stream', to: 'general', topic: 'after restart', content: 'ZUL-5' } });
  const msg = await second.request('GET', `/messages/${sent.body.id}`);
  t.equal(msg.body.message.content, '<p><a href="https://z.example.com/5">ZUL-5</a></p>', 'the renderer uses the stored linkifiers');
});
