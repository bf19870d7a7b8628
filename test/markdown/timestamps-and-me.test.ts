import t from 'tap';
import { runCases } from './fixtures/context.js';

t.test('renderMarkdown: global times', async (t) => {
  runCases(t, [
    { name: 'written-out date and time', input: '<time:Jun 5th 2017, 10:30PM>', html: '<p><time datetime="2017-06-05T22:30:00Z">Jun 5th 2017, 10:30PM</time></p>' },
    { name: 'date only', input: '<time:31 Dec 2017>', html: '<p><time datetime="2017-12-31T00:00:00Z">31 Dec 2017</time></p>' },
    { name: 'zone abbreviation', input: '<time:31 Dec 2017 5:30 am IST>', html: '<p><time datetime="2017-12-31T00:00:00Z">31 Dec 2017 5:30 am IST</time></p>' },
    { name: 'ISO 8601 with offset', input: '<time:2017-06-05T22:30:00+02:00>', html: '<p><time datetime="2017-06-05T20:30:00Z">2017-06-05T22:30:00+02:00</time></p>' },
    { name: 'Unix time', input: "Let's meet at <time:1496701800>.", html: "<p>Let's meet at <time datetime=\"2017-06-05T22:30:00Z\">1496701800</time>.</p>" },
    { name: 'not a time', input: '<time:**hello world**>', html: '<p><span class="timestamp-error">Invalid time format: **hello world**</span></p>' },
    { name: 'markup is escaped', input: '<time:<alert(1)>>', html: '<p><span class="timestamp-error">Invalid time format: &lt;alert(1)</span>&gt;</p>' },
  ]);
});

t.test('renderMarkdown: /me messages', async (t) => {
  runCases(t, [
    { name: '/me', input: '/me is busy', html: '<p>/me is busy</p>', result: { isMeMessage: true } },
    { name: 'only at the start', input: 'I said /me is busy', html: '<p>I said /me is busy</p>', result: { isMeMessage: false } },
    { name: 'needs the space', input: '/meh', html: '<p>/meh</p>', result: { isMeMessage: false } },
  ]);
});
