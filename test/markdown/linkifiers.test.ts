import t from 'tap';
import { renderTopicLinks } from '../../src/markdown/index.js';
import { makeCtx, runCases } from './fixtures/context.js';

const trac = [{ pattern: '#(?P<id>[0-9]+)', urlTemplate: 'https://trac.example.com/ticket/{id}' }];

t.test('renderMarkdown: realm linkifiers', async (t) => {
  runCases(t, [
    {
      name: 'a match becomes a link',
      input: 'fixed in #123.',
      ctx: { linkifiers: trac },
      html: '<p>fixed in <a href="https://trac.example.com/ticket/123">#123</a>.</p>',
      result: { hasLink: true },
    },
    { name: 'not inside a word', input: 'abc#123 #123abc', ctx: { linkifiers: trac }, html: '<p>abc#123 #123abc</p>' },
    { name: 'not inside code', input: '`#123`', ctx: { linkifiers: trac }, html: '<p><code>#123</code></p>' },
    {
      name: 'values are URL-encoded into the template',
      input: 'see JIRA-a/b',
      ctx: { linkifiers: [{ pattern: 'JIRA-(?P<key>[a-z/]+)', urlTemplate: 'https://jira.example.com/{key}' }] },
      html: '<p>see <a href="https://jira.example.com/a%2Fb">JIRA-a/b</a></p>',
    },
    {
      name: 'a template making an unsafe URL leaves the text alone',
      input: 'run X-1',
      ctx: { linkifiers: [{ pattern: 'X-(?P<n>[0-9])', urlTemplate: 'javascript:alert({n})' }] },
      html: '<p>run X-1</p>',
    },
    {
      name: 'an invalid pattern is ignored',
      input: 'still renders',
      ctx: { linkifiers: [{ pattern: '(unclosed', urlTemplate: 'https://x/{a}' }] },
      html: '<p>still renders</p>',
    },
    {
      name: 'a backtracking-prone pattern runs in linear time',
      input: 'a'.repeat(5000) + '!',
      ctx: { linkifiers: [{ pattern: '(a+)+b', urlTemplate: 'https://x/' }] },
      html: `<p>${'a'.repeat(5000)}!</p>`,
    },
  ]);
});

t.test('renderTopicLinks: topic_links', async (t) => {
  const ctx = makeCtx({ linkifiers: trac });
  t.same(renderTopicLinks('bug #123 and #7', ctx), [
    { text: '#123', url: 'https://trac.example.com/ticket/123' },
    { text: '#7', url: 'https://trac.example.com/ticket/7' },
  ], 'every linkifier match, in order');
  t.same(renderTopicLinks('see https://zulip.com/api and zulip.org', ctx), [
    { text: 'https://zulip.com/api', url: 'https://zulip.com/api' },
    { text: 'zulip.org', url: 'https://zulip.org' },
  ], 'raw URLs, scheme-less ones over https');
  t.same(renderTopicLinks('plain topic', ctx), [], 'nothing to link');
  const overlapping = makeCtx({
    linkifiers: [
      { pattern: 'ABC-(?P<n>[0-9]+)', urlTemplate: 'https://first/{n}' },
      { pattern: '(?P<p>[A-Z]+)-(?P<n>[0-9]+)', urlTemplate: 'https://second/{p}/{n}' },
    ],
  });
  t.same(renderTopicLinks('ABC-1 XY-2', overlapping), [
    { text: 'ABC-1', url: 'https://first/1' },
    { text: 'XY-2', url: 'https://second/XY/2' },
  ], 'an earlier linkifier wins an overlap');
});
