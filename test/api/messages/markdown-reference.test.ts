import { request as httpRequest } from 'node:http';
import t from 'tap';
import { createUser, startTestServer, type TestServer } from '../../helpers/server.js';

/** A GET that does not follow redirects: status and Location. */
function get(ts: TestServer, path: string): Promise<{ status: number; location?: string; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: ts.port, path, headers: { host: ts.server.config.externalHost } }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, location: res.headers.location, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * Markdown through HTTP, against the HTML of the reference's fixtures
 * (zerver/tests/fixtures/markdown_test_cases.json), and the /thumbnail URLs previews use.
 */
t.test('messages: Markdown as the reference renders it', async (t) => {
  const ts = await startTestServer(t);
  const ann = await createUser(ts, 'ann@example.com', 'Ann');
  const asAnn = ts.as(ann);
  const realmUrl = `http://${ts.server.config.externalHost}`;
  const send = async (content: string) => {
    const sent = await asAnn('POST', '/messages', { params: { type: 'stream', to: 'general', topic: 'markdown', content } });
    return (await asAnn('GET', `/messages/${sent.body.id}`)).body.message.content as string;
  };
  const GOOGLE = 'https://www.google.com/images/srpr/logo4w.png';
  const Q = 'https%3A%2F%2Fwww.google.com%2Fimages%2Fsrpr%2Flogo4w.png';

  t.test('POST /messages: quotes, trailing spaces, nested lists, emoji names', async (t) => {
    t.equal(await send('>\n>\ntext'), '<blockquote>\n<p>text</p>\n</blockquote>', 'non_empty_blockquote');
    // A sent message's content is stripped at its end first (the reference's normalize_body); a
    // preview renders it as given.
    t.equal((await asAnn('POST', '/messages/render', { params: { content: 'test  ' } })).body.rendered, '<p>test  </p>', 'nl2br_trailing_space');
    t.equal(await send('* opened vs2013 \n* tried to build'), '<ul>\n<li>opened vs2013 </li>\n<li>tried to build</li>\n</ul>', 'a space at the end of a list item stays (ulist_with_inline_code)');
    t.equal(
      await send("* One \n  * Two\n\n    Two continued\n    This shouldn't be a code block\n"),
      "<ul>\n<li>One <ul>\n<li>\n<p>Two</p>\n<p>Two continued<br>\nThis shouldn't be a code block</p>\n</li>\n</ul>\n</li>\n</ul>",
      'ulist_codeblock_interference',
    );
    t.equal(await send('**:smile:**'), '<p><strong><span aria-label="smile" class="emoji emoji-1f642" role="img" title="smile">:smile:</span></strong></p>', 'star_emoji');
    t.equal(await send(':thumbs_up:'), '<p><span aria-label="thumbs up" class="emoji emoji-1f44d" role="img" title="thumbs up">:thumbs_up:</span></p>', ':thumbs_up: is an emoji');
    t.equal(await send('\ud83d\udca9'), '<p><span aria-label="poop" class="emoji emoji-1f4a9" role="img" title="poop">:poop:</span></p>', 'unicode_emoji');
  });

  t.test('POST /messages: image previews in the reference\'s /thumbnail form', async (t) => {
    const img = `<img data-src-fullsize="/thumbnail?url=${Q}&amp;size=full" src="/thumbnail?url=${Q}&amp;size=thumbnail">`;
    t.equal(
      await send(`Google logo today: ${GOOGLE}\nKinda boring`),
      `<p>Google logo today: <a href="${GOOGLE}">${GOOGLE}</a><br>\nKinda boring</p>\n<div class="message_inline_image"><a href="${GOOGLE}">${img}</a></div>`,
      'inline_image',
    );
    t.equal(await send(`[Google link](${GOOGLE})`), `<p><a href="${GOOGLE}">Google link</a></p>\n<div class="message_inline_image"><a href="${GOOGLE}" title="Google link">${img}</a></div>`, 'only_named_inline_image');
  });

  t.test('POST /messages: links to this realm become relative fragment links', async (t) => {
    t.equal(await send(`[foo](${realmUrl}/#narrow/stream/1-Denmark)`), '<p><a href="#narrow/stream/1-Denmark">foo</a></p>', 'fragment_link, with this realm\'s URL');
    t.equal(await send(`${realmUrl}/#narrow/channel/1-general`), `<p><a href="#narrow/channel/1-general">${realmUrl}/#narrow/channel/1-general</a></p>`, 'a bare link');
    t.equal(await send('[foo](http://elsewhere.example/#narrow/stream/1-Denmark)'), '<p><a href="http://elsewhere.example/#narrow/stream/1-Denmark">foo</a></p>', 'another host stays absolute');
  });

  t.test('GET /thumbnail: redirects to the image', async (t) => {
    let res = await get(ts, `/thumbnail?url=${Q}&size=thumbnail`);
    t.same([res.status, res.location], [302, GOOGLE], 'an external image: 302 to it');
    res = await get(ts, `/thumbnail?url=${Q}&size=full`);
    t.same([res.status, res.location], [302, GOOGLE], 'full size too');
    res = await get(ts, '/thumbnail?url=user_uploads%2F2%2Fab%2Fx%2Fimg.png&size=thumbnail');
    t.same([res.status, res.location], [302, '/user_uploads/2/ab/x/img.png'], 'an upload: to its /user_uploads path, which checks access');
    res = await get(ts, `/thumbnail?url=${Q}&size=huge`);
    t.equal(res.status, 403, 'an unknown size is refused');
    res = await get(ts, '/thumbnail?url=https%3A%2F%2Fevil.example%2Fphish&size=full');
    t.equal(res.status, 403, 'a URL that is no image is refused: no open redirect');
    res = await get(ts, '/thumbnail?url=javascript%3Aalert(1).png&size=full');
    t.equal(res.status, 403, 'nor any other scheme');
  });
});
