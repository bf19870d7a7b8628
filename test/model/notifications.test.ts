import t from 'tap';
import { allowsInTopic, emailTrigger, notifiableIfIdle, pushTrigger, TRIGGER, type UserNotifyData } from '../../src/model/notifications.js';
import { VISIBILITY } from '../../src/model/user-topics.js';

/**
 * The rules of model/notifications.ts that need no realm: the reference's
 * test_notification_data.py cases for the trigger order and what stops a notification, and
 * user_allows_notifications_in_StreamTopic's precedence.
 */
const none: UserNotifyData = {
  userId: 2, onlinePushEnabled: false, dmEmail: false, dmPush: false, mentionEmail: false, mentionPush: false,
  topicWildcardEmail: false, topicWildcardPush: false, streamWildcardEmail: false, streamWildcardPush: false,
  streamPush: false, streamEmail: false, followedTopicPush: false, followedTopicEmail: false,
  topicWildcardInFollowedPush: false, topicWildcardInFollowedEmail: false, streamWildcardInFollowedPush: false, streamWildcardInFollowedEmail: false,
  senderMuted: false, disableExternal: false,
};
const data = (fields: Partial<UserNotifyData>): UserNotifyData => ({ ...none, ...fields });
const SENDER = 1;

t.test('trigger order: the most salient reason wins', async (t) => {
  const all = data({ dmEmail: true, dmPush: true, mentionEmail: true, mentionPush: true, streamEmail: true, streamPush: true, followedTopicEmail: true, followedTopicPush: true });
  t.equal(emailTrigger(all, SENDER, true), TRIGGER.directMessage, 'a DM before anything');
  t.equal(emailTrigger(data({ mentionEmail: true, streamEmail: true, followedTopicEmail: true }), SENDER, true), TRIGGER.mention, 'a mention before channel and follow settings');
  t.equal(emailTrigger(data({ topicWildcardInFollowedEmail: true, streamWildcardInFollowedEmail: true, topicWildcardEmail: true }), SENDER, true), TRIGGER.topicWildcardInFollowed, 'wildcards in followed topics before plain wildcards');
  t.equal(emailTrigger(data({ streamWildcardInFollowedEmail: true, topicWildcardEmail: true }), SENDER, true), TRIGGER.streamWildcardInFollowed, '@all in a followed topic before @topic elsewhere');
  t.equal(emailTrigger(data({ topicWildcardEmail: true, streamWildcardEmail: true }), SENDER, true), TRIGGER.topicWildcard, '@topic before @all');
  t.equal(emailTrigger(data({ followedTopicEmail: true, streamEmail: true }), SENDER, true), TRIGGER.followedTopicEmail, 'a followed topic before the channel setting');
  t.equal(pushTrigger(data({ followedTopicPush: true, streamPush: true }), SENDER, true), TRIGGER.followedTopicPush, 'the same for push');
  t.equal(emailTrigger(none, SENDER, true), null, 'nothing, nothing');
});

t.test('trigger order: push and email rank every cause alike', async (t) => {
  // The reference's two trigger functions, row by row: [push field, email field, push trigger, email trigger].
  const order: [keyof UserNotifyData, keyof UserNotifyData, string, string][] = [
    ['dmPush', 'dmEmail', 'direct_message', 'direct_message'],
    ['mentionPush', 'mentionEmail', 'mentioned', 'mentioned'],
    ['topicWildcardInFollowedPush', 'topicWildcardInFollowedEmail', 'topic_wildcard_mentioned_in_followed_topic', 'topic_wildcard_mentioned_in_followed_topic'],
    ['streamWildcardInFollowedPush', 'streamWildcardInFollowedEmail', 'stream_wildcard_mentioned_in_followed_topic', 'stream_wildcard_mentioned_in_followed_topic'],
    ['topicWildcardPush', 'topicWildcardEmail', 'topic_wildcard_mentioned', 'topic_wildcard_mentioned'],
    ['streamWildcardPush', 'streamWildcardEmail', 'stream_wildcard_mentioned', 'stream_wildcard_mentioned'],
    ['followedTopicPush', 'followedTopicEmail', 'followed_topic_push_notify', 'followed_topic_email_notify'],
    ['streamPush', 'streamEmail', 'stream_push_notify', 'stream_email_notify'],
  ];
  for (let i = 0; i < order.length; i++) {
    const [pushField, emailField, pushName, emailName] = order[i]!;
    // Every cause below this one is set too: the higher one must win, in its medium only.
    const lower = Object.fromEntries(order.slice(i + 1).flatMap(([p, e]) => [[p, true], [e, true]]));
    t.equal(pushTrigger(data({ ...lower, [pushField]: true }), SENDER, true), pushName, `push: ${pushField} over what follows`);
    t.equal(emailTrigger(data({ ...lower, [emailField]: true }), SENDER, true), emailName, `email: ${emailField} over what follows`);
    t.equal(pushTrigger(data({ [emailField]: true }), SENDER, true), null, `push ignores ${emailField}`);
    t.equal(emailTrigger(data({ [pushField]: true }), SENDER, true), null, `email ignores ${pushField}`);
  }
});

t.test('what stops a notification', async (t) => {
  const dm = data({ dmEmail: true, dmPush: true });
  t.equal(emailTrigger(dm, SENDER, false), null, 'no email to someone who is there');
  t.equal(pushTrigger(dm, SENDER, false), null, 'no push either');
  t.equal(pushTrigger({ ...dm, onlinePushEnabled: true }, SENDER, false), TRIGGER.directMessage, 'unless they want pushes while online');
  t.equal(emailTrigger(dm, 2, true), null, 'never for one\'s own message');
  t.equal(emailTrigger({ ...dm, senderMuted: true }, SENDER, true), null, 'never from a muted sender');
  t.equal(pushTrigger({ ...dm, disableExternal: true }, SENDER, true), null, 'never for what is meant for the app only');
  t.ok(notifiableIfIdle(dm, SENDER), 'notifiable were they away');
  t.notOk(notifiableIfIdle(none, SENDER), 'not without a reason');
});

t.test('allowsInTopic: topic policy, then channel setting, then global setting', async (t) => {
  t.equal(allowsInTopic(true, VISIBILITY.inherit, true, true), false, 'a muted channel silences');
  t.equal(allowsInTopic(true, VISIBILITY.unmuted, null, true), true, 'unless the topic is unmuted');
  t.equal(allowsInTopic(true, VISIBILITY.followed, true, true), false, 'following is not unmuting here (the reference\'s rule)');
  t.equal(allowsInTopic(false, VISIBILITY.muted, true, true), false, 'a muted topic silences');
  t.equal(allowsInTopic(false, VISIBILITY.inherit, false, true), false, 'the channel\'s own setting wins');
  t.equal(allowsInTopic(false, VISIBILITY.inherit, null, true), true, 'else the global one');
  t.equal(allowsInTopic(false, VISIBILITY.inherit, undefined, false), false, 'off by default');
});
