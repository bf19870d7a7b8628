import t from 'tap';
import { startTestServer } from '../../helpers/server.js';
import { fetchRaw, uploadFiles } from '../../helpers/upload.js';
import { PNG, uploadEmoji } from './fixtures.js';

// The Python bindings (zulip.Client.upload_file, call_endpoint(files=...)) send file parts with
// no Content-Type header; a multipart parser reports those as text/plain (RFC 7578). The
// reference types such a file by its name, and its API test suite uploads img.jpg both ways.
t.test('file parts without a Content-Type are typed by their name', async (t) => {
  const ts = await startTestServer(t);

  t.test('POST /realm/emoji/{emoji_name}: an untyped part named *.png is accepted', async (t) => {
    const res = await uploadEmoji(ts, 'my_custom_emoji', [{ field: '/tmp/img.png', filename: 'img.png', content: PNG, contentType: null }]);
    t.same(res.body, { result: 'success', msg: '' }, 'added');
    const list = await ts.request('GET', '/realm/emoji');
    const emoji = (Object.values(list.body.emoji) as any[]).find((e) => e.name === 'my_custom_emoji');
    t.ok(emoji, 'listed');
    const image = await fetchRaw(ts, emoji.source_url);
    t.equal(image.headers['content-type'], 'image/png', 'served as a PNG');
  });

  t.test('POST /realm/emoji/{emoji_name}: an untyped part named *.txt is still refused', async (t) => {
    const res = await uploadEmoji(ts, 'not_an_image', [{ filename: 'notes.txt', content: PNG, contentType: null }]);
    t.same([res.status, res.body.code, res.body.msg], [400, 'BAD_IMAGE', 'Invalid image format'], 'the reference\'s error');
  });

  t.test('POST /user_uploads: untyped parts keep the type their name gives', async (t) => {
    for (const [filename, type] of [['castle.png', 'image/png'], ['notes.txt', 'text/plain']]) {
      const res = await uploadFiles(ts, [{ filename, content: filename.endsWith('.png') ? PNG : 'some text', contentType: null }]);
      t.equal(res.status, 200, `${filename}: uploaded`);
      const file = await fetchRaw(ts, res.body.url, { auth: ts.owner });
      t.match(String(file.headers['content-type']), type, `${filename}: served as ${type}`);
    }
  });

  t.test('a part that names another type keeps it, whatever its name', async (t) => {
    const res = await uploadFiles(ts, [{ filename: 'data.bin', content: PNG, contentType: 'image/png' }]);
    const file = await fetchRaw(ts, res.body.url, { auth: ts.owner });
    t.equal(file.headers['content-type'], 'image/png', 'image/png as sent');
  });
});
