import { notifyConfig } from '../../lib/config.js';
import { log } from '../../lib/log.js';
import { escapeAll as h } from '../../markdown/preprocess.js';
import { EMPTY_TOPIC_DISPLAY_NAME, topicKey, type MessageRecord } from '../../model/message.js';
import type { RealmState } from '../../model/realm-state.js';
import { realmSetting } from '../../model/realm-settings.js';
import { ROLE, type StreamRecord, type UserRecord } from '../../model/types.js';
import { canAccessUser } from '../../model/user-access.js';
import { defineJobKind, jobsOf, startHooks, type Jobs } from '../../shard/jobs.js';
import type { Shard } from '../../shard/shard.js';
import { getMessage, idsUnder } from '../../store/messages.js';
import type { WriteBatch } from '../../store/shard-store.js';
import { userSetting } from '../../model/user-settings.js';
import { canAccessMessage } from '../messages/access.js';
import { flushActivity } from './activity.js';
import { emailHeaders, emailPage, installationName, recipient, unsubscribeUrl } from './email-frame.js';
import { emailHtml, emailText } from './email-html.js';
import { scheduleMail } from './mail.js';
import { lastActive, lastDigest, setLastDigest } from './store.js';
import { streamNarrowUrl, topicNarrowUrl } from './urls.js';

/**
 * Digest emails (the reference's zerver/lib/digest.py): once a day, at notifications.digestHourUtc,
 * in each organization with digest_emails_enabled whose digest_weekday it is, the people who
 * keep enable_digest_emails on and have not been active for DIGEST_CUTOFF_DAYS get a summary of
 * what they missed: the busiest conversations of their channels (the two with the most people
 * talking, then the longest, four at most), the channels created meanwhile and, beyond the
 * reference, the people who joined. Nobody gets two within twelve hours, nor one with nothing
 * in it.
 *
 * One durable job per shard (`notifyDigest:0:<shard>`) makes the rounds; a round goes through
 * CHUNK people per run, rescheduling itself at once while people remain, so a large
 * organization never holds the shard's thread for long.
 */
const DIGEST_CUTOFF_DAYS = 5;
const MAX_HOT_TOPICS = 4;
const CHUNK = 30;
const REPEAT_SECONDS = 12 * 3600;
const MESSAGES_PER_CHANNEL = 500;

interface DigestRound {
  /** Seconds: what happened after this counts. Null between rounds. */
  cutoff: number | null;
  /** The last person looked at: [realm id, user id]. */
  cursor: [number, number];
}

const jobKey = (shard: Shard) => `notifyDigest:0:${shard.index}`;

/** The reference's Monday-first weekday, as digest_weekday counts. */
const weekday = (ms: number) => (new Date(ms).getUTCDay() + 6) % 7;

function nextRound(shard: Shard, now: number): number {
  const cfg = notifyConfig(shard.config);
  if (cfg.digestIntervalSeconds !== null) return now + cfg.digestIntervalSeconds * 1000;
  const next = new Date(now);
  next.setUTCHours(cfg.digestHourUtc, 0, 0, 0);
  if (next.getTime() <= now) next.setUTCDate(next.getUTCDate() + 1);
  return next.getTime();
}

startHooks.push((jobs: Jobs, shard: Shard) => {
  if (jobs.get(jobKey(shard))) return;
  const batch = shard.batch();
  jobs.schedule<DigestRound>(batch, { key: jobKey(shard), kind: 'notifyDigest', realmId: 0, due: nextRound(shard, Date.now()), data: { cutoff: null, cursor: [0, 0] } });
  batch.commit().catch((err) => log.error({ err, shard: shard.index }, 'scheduling digests failed'));
});

defineJobKind<DigestRound>('notifyDigest', {
  run({ shard, job, batch }) {
    const now = Date.now();
    flushActivity(shard, batch);
    let round = job.data;
    if (round.cutoff === null) {
      if (!notifyConfig(shard.config).digestEmails) return reschedule(shard, batch, nextRound(shard, now), { cutoff: null, cursor: [0, 0] });
      round = { cutoff: Math.floor(now / 1000) - DIGEST_CUTOFF_DAYS * 86400, cursor: [0, 0] };
    }
    const today = weekday(now);
    const realms = [...shard.realms.values()].filter((r) => !r.realm.deactivated && realmSetting(r, 'digest_emails_enabled') === true && realmSetting(r, 'digest_weekday') === today && r.id >= round.cursor[0]).sort((a, b) => a.id - b.id);
    let looked = 0;
    for (const realm of realms) {
      const after = realm.id === round.cursor[0] ? round.cursor[1] : 0;
      const users = [...realm.users.values()].filter((u) => u.id > after).sort((a, b) => a.id - b.id);
      const cache = new Map<number, DigestTopic[]>();
      for (const user of users) {
        if (looked === CHUNK) return reschedule(shard, batch, now, { cutoff: round.cutoff, cursor: [realm.id, user.id - 1] });
        looked++;
        if (eligible(shard, realm, user, round.cutoff!, now)) digestFor(shard, batch, realm, user, round.cutoff!, cache);
      }
    }
    reschedule(shard, batch, nextRound(shard, now), { cutoff: null, cursor: [0, 0] });
  },
});

function reschedule(shard: Shard, batch: WriteBatch, due: number, data: DigestRound): void {
  jobsOf(shard).schedule<DigestRound>(batch, { key: jobKey(shard), kind: 'notifyDigest', realmId: 0, due, data });
}

function eligible(shard: Shard, realm: RealmState, user: UserRecord, cutoff: number, now: number): boolean {
  if (!user.isActive || user.isBot || userSetting(user, 'enable_digest_emails') !== true) return false;
  if ((lastActive(shard, realm, user.id) ?? 0) > cutoff) return false;
  return now / 1000 - (lastDigest(shard, realm, user.id) ?? 0) > REPEAT_SECONDS;
}

/** One topic's traffic since the cutoff (the reference's DigestTopic). */
interface DigestTopic {
  streamId: number;
  topic: string;
  humanSenders: Set<string>;
  sample: MessageRecord[];
  humanMessages: number;
}

/** A channel's topics since the cutoff, as everyone with access to its history sees them. */
function recentTopics(shard: Shard, realm: RealmState, streamId: number, cutoff: number, visible: (m: MessageRecord) => boolean): DigestTopic[] {
  const topics = new Map<string, DigestTopic>();
  const ids = [...idsUnder(shard.store.byStream, [realm.id, streamId], { reverse: true, limit: MESSAGES_PER_CHANNEL })].reverse();
  for (const id of ids) {
    const msg = getMessage(shard, realm, id);
    if (!msg || msg.timestamp <= cutoff || !visible(msg)) continue;
    const key = topicKey(msg.topic);
    let topic = topics.get(key);
    if (!topic) topics.set(key, (topic = { streamId, topic: msg.topic, humanSenders: new Set(), sample: [], humanMessages: 0 }));
    if (topic.sample.length < 2) topic.sample.push(msg);
    const sender = realm.users.get(msg.senderId);
    if (sender && !sender.isBot) {
      topic.humanSenders.add(sender.fullName);
      topic.humanMessages++;
    }
  }
  return [...topics.values()];
}

/** get_hot_topics: the two most diverse conversations, then the longest, four in all. */
function hotTopics(topics: DigestTopic[]): DigestTopic[] {
  const hot = [...topics].sort((a, b) => b.humanSenders.size - a.humanSenders.size).slice(0, 2);
  for (const topic of [...topics].sort((a, b) => b.humanMessages - a.humanMessages)) {
    if (hot.length >= MAX_HOT_TOPICS) break;
    if (!hot.includes(topic)) hot.push(topic);
  }
  return hot;
}

/** The reference's display_list filter: "a, b, and c", or "a, b, c, d, and 3 others". */
export function displayList(values: string[], limit: number): string {
  if (values.length === 0) return '';
  if (values.length === 1) return values[0];
  if (values.length <= limit) return values.length === 2 ? `${values[0]} and ${values[1]}` : `${values.slice(0, -1).join(', ')}, and ${values[values.length - 1]}`;
  const others = values.length - limit;
  return `${values.slice(0, limit).join(', ')}, and ${others} other${others === 1 ? '' : 's'}`;
}

function digestFor(shard: Shard, batch: WriteBatch, realm: RealmState, user: UserRecord, cutoff: number, cache: Map<number, DigestTopic[]>): void {
  const guest = user.role === ROLE.guest;
  const newChannels = [...realm.streams.values()].filter((s) => !s.isArchived && s.dateCreated > cutoff && (guest ? s.isWebPublic : !s.inviteOnly)).sort((a, b) => a.id - b.id);
  const newPeople = [...realm.users.values()].filter((u) => u.id !== user.id && u.isActive && !u.isBot && u.dateJoined > cutoff && canAccessUser(shard, realm, user, u)).sort((a, b) => a.id - b.id);
  const showContent = realmSetting(realm, 'message_content_allowed_in_email_notifications') === true && userSetting(user, 'message_content_in_email_notifications') === true;
  const all: DigestTopic[] = [];
  let newMessages = 0;
  for (const [streamId, sub] of realm.subscriptionsOf(user.id)) {
    const stream = realm.streams.get(streamId);
    if (sub.isMuted || !stream || stream.isArchived) continue;
    // Shared history reads the same for every subscriber; protected history only what each received.
    const topics = stream.historyPublicToSubscribers
      ? (cache.get(streamId) ?? cache.set(streamId, recentTopics(shard, realm, streamId, cutoff, () => true)).get(streamId)!)
      : recentTopics(shard, realm, streamId, cutoff, (m) => canAccessMessage(realm, user, m));
    all.push(...topics);
    newMessages += topics.reduce((n, t) => n + t.humanMessages, 0);
  }
  const hot = showContent ? hotTopics(all) : [];
  const enough = newChannels.length > 0 || newPeople.length > 0 || (showContent ? hot.length > 0 : newMessages > 0);
  if (!enough) return;

  const subject = `Zulip digest for ${realm.realm.name}`;
  const unsubscribe = unsubscribeUrl(shard, batch, realm, user.id, 'digest');
  const settingsUrl = `${realm.url}/#settings/notifications`;
  const opts = { realmUrl: realm.url, timezone: user.timezone, twentyFourHour: userSetting(user, 'twenty_four_hour_time') === true };
  let text = '';
  let html = '';
  if (showContent) {
    for (const topic of hot) {
      const stream = realm.streams.get(topic.streamId)!;
      const name = topic.topic === '' ? EMPTY_TOPIC_DISPLAY_NAME : topic.topic;
      text += `#${stream.name} > ${name}\n`;
      html += `<div class="hot_convo_recipient_block"><div class="hot_convo_recipient_header"><a href="${h(streamNarrowUrl(realm, stream))}">#${h(stream.name)}</a> &gt; <a href="${h(topicNarrowUrl(realm, stream, topic.topic))}">${h(name)}</a></div>`;
      for (const msg of topic.sample) {
        const sender = realm.users.get(msg.senderId)?.fullName ?? '';
        text += `${sender}:\n${emailText(msg.content, realm.url)}\n`;
        html += `<div class="hot_convo_message_content_block"><b>${h(sender)}</b>: ${emailHtml(msg.rendered, opts)}</div>`;
      }
      const more = topic.humanMessages - topic.sample.length;
      if (more > 0) {
        const line = `+ ${more} more message${more === 1 ? '' : 's'} by ${displayList([...topic.humanSenders].sort(), 4)}.`;
        text += `${line}\n`;
        html += `<p class="digest_paragraph">${h(line)}</p>`;
      }
      text += '\n';
      html += '</div>\n';
    }
    if (newChannels.length > 0) {
      text += `** New channels **\n    ${displayList(newChannels.map((s) => s.name), 1000)}.\n\n`;
      html += `<p class="digest_paragraph"><b>New channels</b></p><p class="digest_paragraph">${displayList(newChannels.map((s: StreamRecord) => `<a href="${h(streamNarrowUrl(realm, s))}">#${h(s.name)}</a>`), 1000)}.</p>\n`;
    }
  } else {
    const counts = countsLine(newMessages, newChannels.length, realm.realm.name);
    text += `${counts}\n\n`;
    html += `<p class="digest_paragraph">${h(counts)}</p>\n`;
  }
  if (newPeople.length > 0) {
    text += `** New people **\n    ${displayList(newPeople.map((u) => u.fullName), 1000)}.\n\n`;
    html += `<p class="digest_paragraph"><b>New people</b></p><p class="digest_paragraph">${h(displayList(newPeople.map((u) => u.fullName), 1000))}.</p>\n`;
  }
  text += `Log in to Zulip to catch up: ${realm.url}.\n\n--\nManage email preferences:\n\n${settingsUrl}\n\nUnsubscribe from digest emails:\n\n${unsubscribe}\n`;
  html += `<p class="digest_paragraph"><a href="${h(realm.url)}">Log in</a> to Zulip to catch up.</p>`;
  const footer = `<p class="digest_paragraph muted"><a href="${h(settingsUrl)}">Manage email preferences</a> | <a href="${h(unsubscribe)}">Unsubscribe from digest emails</a></p>`;
  scheduleMail(shard, batch, realm, { to: recipient(user), subject, text, html: emailPage(subject, html, footer), fromName: `${installationName(shard)} digest`, headers: emailHeaders(realm, unsubscribe) });
  setLastDigest(batch, shard, realm, user.id, Math.floor(Date.now() / 1000));
}

function countsLine(messages: number, channels: number, realmName: string): string {
  if (messages > 0 && channels > 0) return `You have ${messages} new messages, and there are ${channels} new channels in ${realmName}.`;
  if (messages > 0) return `You have ${messages} new messages in ${realmName}.`;
  return `There are ${channels} new channels in ${realmName}.`;
}
