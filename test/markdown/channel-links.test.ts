import t from 'tap';
import { runCases } from './fixtures/context.js';

t.test('renderMarkdown: channel, topic and message links', async (t) => {
  runCases(t, [
    {
      name: 'channel',
      input: '#**Verona**',
      html: '<p><a class="stream" data-stream-id="2" href="/#narrow/channel/2-Verona">#Verona</a></p>',
      result: { hasLink: true },
    },
    {
      name: 'channel with a space in its name',
      input: 'see #**social club**',
      html: '<p>see <a class="stream" data-stream-id="9" href="/#narrow/channel/9-social-club">#social club</a></p>',
    },
    {
      name: 'topic, encoded as the reference encodes it',
      input: '#**Verona>Zulip updates (v1.2)**',
      html:
        '<p><a class="stream-topic" data-stream-id="2" href="/#narrow/channel/2-Verona/topic/Zulip.20updates.20.28v1.2E2.29">' +
        '#Verona &gt; Zulip updates (v1.2)</a></p>',
    },
    {
      name: 'the empty topic shows its display name',
      input: '#**Verona>**',
      ctx: { emptyTopicDisplayName: 'general chat' },
      html: '<p><a class="stream-topic" data-stream-id="2" href="/#narrow/channel/2-Verona/topic/">#Verona &gt; <em>general chat</em></a></p>',
    },
    {
      name: 'message link',
      input: '#**Verona>lunch@214**',
      html: '<p><a class="message-link" href="/#narrow/channel/2-Verona/topic/lunch/near/214">#Verona &gt; lunch @ 💬</a></p>',
    },
    { name: 'a channel the sender cannot see stays text', input: '#**Secret**', html: '<p>#<strong>Secret</strong></p>', result: { hasLink: false } },
    {
      name: 'a link to this realm becomes relative',
      input: '[foo](http://zulip.testserver/#narrow/channel/2-Verona)',
      html: '<p><a href="#narrow/channel/2-Verona">foo</a></p>',
    },
    {
      name: 'a bare link to this realm keeps its text',
      input: 'http://zulip.testserver/#narrow/channel/2-Verona',
      html: '<p><a href="#narrow/channel/2-Verona">http://zulip.testserver/#narrow/channel/2-Verona</a></p>',
    },
    {
      name: 'other paths on this realm stay absolute',
      input: 'http://zulip.testserver/https://example.com',
      html: '<p><a href="http://zulip.testserver/https://example.com">http://zulip.testserver/https://example.com</a></p>',
    },
  ]);
});
