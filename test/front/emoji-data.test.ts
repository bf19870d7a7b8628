import { request } from 'node:http';
import t from 'tap';
import { createUser, startTestServer } from '../helpers/server.js';

/**
 * The emoji name table that POST /register's server_emoji_data_url names: served at that URL
 * without credentials, revalidated by ETag, and agreeing with the names reactions and Markdown
 * accept (a client that offers a name from it must never get "Invalid emoji name").
 */
t.test('GET server_emoji_data_url', async (t) => {
  const ts = await startTestServer(t);
  const ann = await createUser(ts, 'ann@example.com', 'Ann');
  const asAnn = ts.as(ann);
  const registered = await asAnn('POST', '/register', { params: { fetch_event_types: ['realm'] } });
  const url = new URL(registered.body.server_emoji_data_url as string);
  const local = `http://127.0.0.1:${ts.port}${url.pathname}`;

  const res = await fetch(local);
  const etag = res.headers.get('etag');
  const table = (await res.json()) as { code_to_names: Record<string, string[]> };
  const entries = Object.entries(table.code_to_names);

  t.test('the file: code_to_names, canonical name first, each name once', async (t) => {
    t.equal(res.status, 200, 'served without credentials');
    t.match(res.headers.get('content-type'), /^application\/json/, 'JSON');
    t.match(res.headers.get('cache-control'), /max-age=\d+/, 'cacheable');
    t.same(Object.keys(table), ['code_to_names'], 'one property, as the reference describes');
    t.equal(entries.length, 1847, 'the reference\'s name table, every emoji of it (src/markdown/tables)');
    t.same(table.code_to_names['1f44d'], ['+1', 'thumbs_up', 'like'], 'thumbs up: the reference\'s names');
    t.same(table.code_to_names['1f642'], ['smile'], ':smile: is U+1F642, as in the reference');
    t.same(table.code_to_names['1f419'], ['octopus'], 'octopus');
    t.equal(table.code_to_names['1f44d']?.[0], '+1', 'thumbs up: +1 is canonical');
    t.ok(entries.every(([code, names]) => /^[0-9a-f]{4,}(-[0-9a-f]{4,})*$/.test(code) && names.length > 0), 'codes in the reference encoding, no empty name lists');
    const all = entries.flatMap(([, names]) => names);
    t.equal(new Set(all).size, all.length, 'no name maps to two emoji');
  });

  t.test('conditional requests and methods', async (t) => {
    t.ok(etag, 'an ETag');
    // node:http, not fetch: fetch adds Cache-Control: no-cache to conditional requests, which
    // rightly makes any server answer in full.
    const again = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      request(local, { headers: { 'if-none-match': etag! } }, (res) => {
        let body = '';
        res.on('data', (chunk) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, body }));
      }).on('error', reject).end();
    });
    t.equal(again.status, 304, 'If-None-Match with the ETag: 304');
    t.equal(again.body, '', 'no body');
    const head = await fetch(local, { method: 'HEAD' });
    t.equal(head.status, 200, 'HEAD: 200');
    const post = await fetch(local, { method: 'POST' });
    t.equal(post.status, 404, 'POST: not a file');
    t.same(await post.json(), { result: 'error', msg: 'Not Found', code: 'BAD_REQUEST' }, 'in the JSON error shape');
  });

  t.test('every name in the file is one reactions and Markdown accept', async (t) => {
    const sent = await asAnn('POST', '/messages', { params: { type: 'stream', to: 'general', topic: 'emoji', content: 'react' } });
    // Every 50th emoji, by its canonical name and by its last alias.
    const sample = entries.filter((_, i) => i % 50 === 0);
    const refused: string[] = [];
    const unrendered: string[] = [];
    for (const [code, names] of sample) {
      for (const name of new Set([names[0], names[names.length - 1]])) {
        const add = await asAnn('POST', `/messages/${sent.body.id}/reactions`, { params: { emoji_name: name } });
        if (add.status !== 200 || (await asAnn('DELETE', `/messages/${sent.body.id}/reactions`, { params: { emoji_name: name } })).status !== 200) refused.push(name);
        // As the apps send a picked emoji: its name and code, checked against each other.
        const pair = { emoji_name: name, emoji_code: code, reaction_type: 'unicode_emoji' };
        const both = await asAnn('POST', `/messages/${sent.body.id}/reactions`, { params: pair });
        if (both.status !== 200 || (await asAnn('DELETE', `/messages/${sent.body.id}/reactions`, { params: pair })).status !== 200) refused.push(`${name} ${code}`);
        const html = (await asAnn('POST', '/messages/render', { params: { content: `:${name}:` } })).body.rendered as string;
        if (!html.includes(`emoji-${code}`)) unrendered.push(name);
      }
    }
    t.same(refused, [], `${sample.length} emoji accepted as reactions`);
    t.same(unrendered, [], 'and rendered by :name:');
  });
});
