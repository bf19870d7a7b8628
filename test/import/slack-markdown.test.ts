import { readFileSync } from 'node:fs';
import t from 'tap';
import { slackFullName, toZulipMarkdown, type SlackUser } from '../../src/import/slack/markdown.js';

/**
 * The reference's Slack-to-Markdown conversion, checked with its own cases
 * (zerver/tests/test_slack_message_conversion.py and its fixture slack_message_conversion.json,
 * copied under test/fixtures/import/).
 */
const fixture = JSON.parse(readFileSync(new URL('../../../test/fixtures/import/slack_message_conversion.json', import.meta.url), 'utf8')) as { regular_tests: { name: string; input: string; conversion_output: string }[] };

t.test('the reference\'s conversion fixtures', async (t) => {
  for (const test of fixture.regular_tests) {
    t.equal(toZulipMarkdown(test.input, { users: [], channels: new Map(), userIds: new Map() }).text, test.conversion_output, test.name);
  }
});

t.test('mentions and channel links', async (t) => {
  const users: SlackUser[] = [
    { id: 'U0CBK5KAT', name: 'aaron.anzalone', deleted: false, is_mirror_dummy: false, real_name: '' },
    { id: 'U08RGD1RD', name: 'john', deleted: false, is_mirror_dummy: false, real_name: 'John Doe' },
    { id: 'U09TYF5Sk', name: 'Jane', is_mirror_dummy: false, deleted: true },
  ];
  const ctx = { users, channels: new Map([['general', 'C5Z73A7RA']]), userIds: new Map([['U08RGD1RD', 540], ['U0CBK5KAT', 554], ['U09TYF5SK', 571]]) };
  t.equal(slackFullName(users[1]), 'John Doe', 'a full name');
  t.equal(slackFullName(users[2]), 'Jane', 'a deleted user is named by name');
  let r = toZulipMarkdown('Hi <@U08RGD1RD|john>: How are you? <#C5Z73A7RA|general>', ctx);
  t.equal(r.text, 'Hi @**John Doe**: How are you? #**general**', 'mention and channel link');
  t.same(r.mentioned, [540], 'the mentioned user');
  r = toZulipMarkdown('Hi <@U08RGD1RD|john>: How are you?<@U0CBK5KAT> asked.', ctx);
  t.equal(r.text, 'Hi @**John Doe**: How are you?@**aaron.anzalone** asked.', 'two mentions');
  t.same(r.mentioned, [540, 554], 'both mentioned');
  r = toZulipMarkdown('Hi <@U08RGD1RD|jon>: How are you?', ctx);
  t.equal(r.text, 'Hi <@U08RGD1RD|jon>: How are you?', 'a mention whose name does not match is left');
  t.same(r.mentioned, [], 'and mentions nobody');
});

t.test('links', async (t) => {
  const ctx = { users: [], channels: new Map(), userIds: new Map() };
  let r = toZulipMarkdown('<http://journals.plos.org/plosone/article>', ctx);
  t.same([r.text, r.hasLink], ['http://journals.plos.org/plosone/article', true], 'a bare link');
  r = toZulipMarkdown('<http://chat.zulip.org/help/logging-in|Help logging in to CZO>', ctx);
  t.same([r.text, r.hasLink], ['[Help logging in to CZO](http://chat.zulip.org/help/logging-in)', true], 'a labelled link');
  r = toZulipMarkdown('<mailto:foo@foo.com>', ctx);
  t.same([r.text, r.hasLink], ['mailto:foo@foo.com', true], 'a mail address');
  t.equal(toZulipMarkdown('random message', ctx).hasLink, false, 'no link');
});
