import { dmKey, FLAG, INDEXED_FLAGS, topicKey, type MessageRecord } from '../../model/message.js';
import { flagBits, readMark, received, storedBits } from '../../model/read-state.js';
import type { RealmState } from '../../model/realm-state.js';
import type { StreamRecord, UserRecord } from '../../model/types.js';
import type { Shard } from '../../shard/shard.js';
import { flipIds } from '../../store/flips.js';
import { idsUnder, mergeIds, receivedIds, type IdRange } from '../../store/messages.js';
import { hasContentAccess, isGuest } from '../streams/access.js';
import { canAccessMessage } from './access.js';
import { badNarrow, type NarrowTerm } from './narrow.js';
import { matchesSearch, parseSearch, type SearchQuery } from './narrow-search.js';
import { isMessageMuted, isTopicFollowed, isTopicMutedByUser } from '../user-topics/muting.js';
import { VISIBILITY } from '../../model/user-topics.js';
import { CHANNEL_OPERATORS, channelDriver, clip, exactChannel, type Driver } from './narrow-channel.js';

/**
 * How a narrow is answered. Every term becomes a test on a loaded message; the most selective
 * non-negated term also supplies the candidate ids, read from its index in id order (a topic,
 * a conversation, the user's starred messages...), so a fetch walks from its anchor and stops
 * after the messages it needs. The tests then decide; they only ever remove messages, and the
 * base test keeps to what the user may read, so no term can widen what a user sees.
 *
 * Like the reference, a narrow searches the user's own messages (those they received, sent, or
 * flagged) unless it names a channel whose history they may read, or asks for channels:public;
 * then it searches that history. Any `is:` term but is:resolved keeps it to the user's own.
 */
export interface NarrowPlan {
  /** Whether the narrow reads channel history rather than the user's own messages. */
  history: boolean;
  /** Candidate ids within the range, in its order: a superset of the matches there. */
  candidates(range: IdRange): Iterable<number>;
  /**
   * Whether the candidates come from the realm's indexes (so each names a message of the realm,
   * and one that is not there is damage: store/messages.ts indexedMessage), or from the client
   * (`id:`).
   */
  indexed: boolean;
  matches(msg: MessageRecord): boolean;
  /**
   * Set (to the channel) when every candidate matches: the narrow is one channel, or one of its topics, whose
   * history the user may read, so the index's ids are the answer and no message need be read
   * to check it (POST /messages/flags/narrow over thousands of messages).
   */
  exact: StreamRecord | null;
  /** The positive search terms, for match_content and match_subject. */
  search: SearchQuery | null;
}

interface Ctx {
  msg: MessageRecord;
  /** The user's flag bits as shown (read included), computed on first use. */
  bits(): number;
}

type Test = (c: Ctx) => boolean;

const MENTION_BITS = INDEXED_FLAGS.mentioned;
const RESOLVED_PREFIX = '✔ ';
/** The reference's Message.MAX_POSSIBLE_MESSAGE_ID. */
const MAX_MESSAGE_ID = 2147483647;

const inRange = (id: number, r: IdRange) => id >= (r.min ?? 0) && id <= (r.max ?? Number.MAX_SAFE_INTEGER);

class Planner {
  readonly tests: Test[] = [];
  readonly drivers: Driver[] = [];
  private channelNarrow = false;
  private dmNarrow = false;
  private channelTerms: { stream: StreamRecord; negated: boolean }[] = [];
  private topicTerm: string | null = null;
  /** Terms that may open channel history, in order: the last one decides (ok_to_include_history). */
  private historyVotes: (() => boolean | null)[] = [];
  private historyBlocked = false;
  unread = false;
  private positiveSearch: string[] = [];
  private negativeSearch: string[] = [];

  constructor(
    readonly shard: Shard,
    readonly realm: RealmState,
    readonly user: UserRecord,
  ) {}

  private get r() {
    return this.realm.id;
  }

  private kind(negated: boolean, channel: boolean, dm: boolean): void {
    if (negated) return;
    this.channelNarrow ||= channel;
    this.dmNarrow ||= dm;
    if (this.channelNarrow && this.dmNarrow) throw badNarrow('No message can be both a channel message and direct message');
  }

  private stream(operand: unknown): StreamRecord {
    const stream = typeof operand === 'number' ? this.realm.streams.get(operand) : this.realm.streamByName(String(operand));
    if (!stream) throw badNarrow(`unknown channel ${operand}`);
    return stream;
  }

  private person(operand: unknown): UserRecord {
    const user = typeof operand === 'number' ? this.realm.users.get(operand) : this.realm.userByEmail(String(operand));
    if (!user) throw badNarrow(`unknown user ${operand}`);
    return user;
  }

  /** The participants of a `dm` operand, the user included; null when it names no one. */
  private participants(operand: unknown): number[] | null {
    const items: (string | number)[] = typeof operand === 'string' ? operand.split(',') : (operand as number[]);
    if (items.length === 0) return null;
    const shown = Array.isArray(operand) ? `[${operand.join(', ')}]` : String(operand);
    const ids = items.map((item) => {
      const found = typeof item === 'number' ? this.realm.users.get(item) : this.realm.userByEmail(item.trim());
      if (!found) throw badNarrow(`unknown user in ${shown}`);
      return found.id;
    });
    return [...new Set([...ids, this.user.id])].sort((a, b) => a - b);
  }

  private flagIndex(flag: string, rank: number): Driver {
    return { rank, ids: (range) => idsUnder(this.shard.store.uflagIdx, [this.r, this.user.id, flag], range) };
  }

  add(term: NarrowTerm): void {
    const { operator, operand, negated } = term;
    const push = (test: Test, driver?: Driver) => {
      this.tests.push(negated ? (c) => !test(c) : test);
      if (driver && !negated) this.drivers.push(driver);
    };
    switch (operator) {
      case 'channel':
      case 'stream': {
        this.kind(negated, true, false);
        const stream = this.stream(operand);
        this.channelTerms.push({ stream, negated });
        if (!negated) this.historyVotes.push(() => hasContentAccess(this.realm, this.user, stream) && (!stream.inviteOnly || stream.historyPublicToSubscribers));
        return push((c) => c.msg.streamId === stream.id);
      }
      case 'channels':
      case 'streams': {
        this.kind(negated, true, false);
        if (operand === 'public') {
          if (!negated) this.historyVotes.push(() => (isGuest(this.user) ? null : true));
          return push((c) => this.isPublic(c.msg.streamId));
        }
        if (operand === 'web-public') return push((c) => c.msg.streamId !== null && this.realm.streams.get(c.msg.streamId)?.isWebPublic === true);
        throw badNarrow(`unknown channels operand ${operand}`);
      }
      case 'topic': {
        this.kind(negated, true, false);
        const key = topicKey(String(operand));
        if (!negated) this.topicTerm = key;
        // Direct messages have the empty topic, as in the reference's column.
        return push((c) => topicKey(c.msg.topic) === key);
      }
      case 'sender': {
        const sender = this.person(operand);
        return push((c) => c.msg.senderId === sender.id, { rank: 4, ids: (range) => idsUnder(this.shard.store.bySender, [this.r, sender.id], range) });
      }
      case 'dm':
      case 'pm-with':
      case 'pm_with': {
        this.kind(negated, false, true);
        const people = this.participants(operand);
        if (!people) return push(() => false, { rank: 0, ids: () => [] });
        const key = dmKey(people);
        return push((c) => c.msg.kind === 'direct' && dmKey(c.msg.dm!) === key, { rank: 1, ids: (range) => idsUnder(this.shard.store.byDm, [this.r, key], range) });
      }
      case 'dm-including':
      case 'group-pm-with':
      case 'group_pm_with': {
        this.kind(negated, false, true);
        const other = this.person(operand);
        const groupOnly = operator !== 'dm-including';
        const mine = { rank: 5, ids: (range: IdRange) => idsUnder(this.shard.store.byUserDm, [this.r, this.user.id], range) };
        return push((c) => c.msg.kind === 'direct' && c.msg.dm!.includes(other.id) && (!groupOnly || c.msg.dm!.length > 2), mine);
      }
      case 'id': {
        const text = String(operand);
        if (!/^\d+$/.test(text) || Number(text) > MAX_MESSAGE_ID) throw badNarrow('Invalid message ID');
        const id = Number(text);
        return push((c) => c.msg.id === id, { rank: 0, ids: (range) => (inRange(id, range) ? [id] : []), given: true });
      }
      case 'near':
        // Clients turn `near` into the anchor; as a filter it matches everything.
        return;
      case 'has':
        return push(this.has(String(operand)));
      case 'is':
        return this.is(String(operand), negated, push);
      case 'in':
        if (operand === 'home') return push((c) => !this.muted(c.msg));
        if (operand === 'all') return;
        throw badNarrow(`unknown 'in' operand ${operand}`);
      case 'search':
        (negated ? this.negativeSearch : this.positiveSearch).push(String(operand));
        return;
      default:
        throw badNarrow(`unknown operator ${operator}`);
    }
  }

  private has(operand: string): Test {
    switch (operand) {
      case 'link':
        return (c) => c.msg.hasLink;
      case 'image':
        return (c) => c.msg.hasImage;
      case 'attachment':
        return (c) => c.msg.hasAttachment;
      case 'reaction':
        return (c) => c.msg.reactions.length > 0;
      default:
        throw badNarrow(`unknown 'has' operand ${operand}`);
    }
  }

  private is(operand: string, negated: boolean, push: (test: Test, driver?: Driver) => void): void {
    // Flags live with the user's own messages: asking about them never opens channel history.
    if (operand !== 'resolved') this.historyBlocked = true;
    switch (operand) {
      case 'dm':
      case 'private':
        // -is:dm means channel messages only, which a dm term would contradict.
        if (negated) this.kind(false, true, false);
        else this.kind(false, false, true);
        return push((c) => c.msg.kind === 'direct', { rank: 5, ids: (range) => idsUnder(this.shard.store.byUserDm, [this.r, this.user.id], range) });
      case 'starred':
        return push((c) => (c.bits() & FLAG.starred) !== 0, this.flagIndex('starred', 2));
      case 'mentioned':
        return push((c) => (c.bits() & MENTION_BITS) !== 0, this.flagIndex('mentioned', 2));
      case 'alerted':
        return push((c) => (c.bits() & FLAG.has_alert_word) !== 0, this.flagIndex('alerted', 2));
      case 'unread':
        // Not a driver of its own: it narrows whichever driver is chosen (see planNarrow).
        this.unread ||= !negated;
        return push((c) => (c.bits() & FLAG.read) === 0);
      case 'resolved':
        return push((c) => c.msg.kind === 'stream' && c.msg.topic.startsWith(RESOLVED_PREFIX));
      case 'followed':
        // Driven by the followed topics' indexes: a user follows few topics.
        return push((c) => isTopicFollowed(this.realm, this.user.id, c.msg), { rank: 2, ids: (range) => this.followedIds(range) });
      case 'muted':
        return push((c) => this.muted(c.msg));
      default:
        throw badNarrow(`unknown 'is' operand ${operand}`);
    }
  }

  private isPublic(streamId: number | null): boolean {
    const stream = streamId === null ? undefined : this.realm.streams.get(streamId);
    return stream !== undefined && !stream.inviteOnly && stream.historyPublicToSubscribers;
  }

  private followedIds(range: IdRange): Iterable<number> {
    const sources: Iterable<number>[] = [];
    for (const record of this.realm.userTopics.ofUser(this.user.id)) {
      if (record.policy === VISIBILITY.followed) sources.push(idsUnder(this.shard.store.byTopic, [this.r, record.streamId, topicKey(record.topic)], range));
    }
    return mergeIds(sources, range.reverse);
  }

  /** Muted topics, and muted channels but for their unmuted and followed topics (user-topics/muting.ts). */
  muted(msg: MessageRecord): boolean {
    return isMessageMuted(this.realm, this.user.id, msg);
  }

  /** The reference's ok_to_include_history. */
  history(): boolean {
    let include = false;
    for (const vote of this.historyVotes) include = vote() ?? include;
    return include && !this.historyBlocked;
  }

  searchTerms(): SearchQuery | null {
    const { store } = this.shard;
    if (this.negativeSearch.length > 0) {
      const query = parseSearch(this.negativeSearch.join(' '));
      this.tests.push((c) => !matchesSearch(query, c.msg));
    }
    if (this.positiveSearch.length === 0) return null;
    const query = parseSearch(this.positiveSearch.join(' '));
    // The longest word is the likeliest to be rare; an empty query matches nothing.
    const word = [...query.words].sort((a, b) => b.length - a.length)[0];
    this.tests.push((c) => matchesSearch(query, c.msg));
    this.drivers.push({ rank: 3, ids: (range) => (word === undefined ? [] : idsUnder(store.search, [this.r, word], range)) });
    return query;
  }

  positiveChannel(): StreamRecord | null {
    return this.channelTerms.find((c) => !c.negated)?.stream ?? null;
  }

  /** Channel and topic terms drive by the channel's (or topic's) index (narrow-channel.ts). */
  channelDriver(history: boolean): void {
    const stream = this.positiveChannel();
    if (stream) this.drivers.push(channelDriver(this.shard, this.realm, this.user, stream, this.topicTerm, history));
  }

  /** channels:public with history: the public channels' messages. */
  publicChannelsDriver(terms: NarrowTerm[]): void {
    if (!terms.some((t) => (t.operator === 'channels' || t.operator === 'streams') && t.operand === 'public' && !t.negated)) return;
    const streams = [...this.realm.streams.values()].filter((s) => this.isPublic(s.id));
    this.drivers.push({ rank: 6, ids: (range) => mergeIds(streams.map((s) => idsUnder(this.shard.store.byStream, [this.r, s.id], range)), range.reverse) });
  }

  /** Everything the user has: what they received, sent, or starred without receiving it. */
  ownIds(range: IdRange): Iterable<number> {
    const { store } = this.shard;
    return mergeIds(
      [
        receivedIds(this.shard, this.realm, this.user.id, range),
        idsUnder(store.bySender, [this.r, this.user.id], range),
        idsUnder(store.uflagIdx, [this.r, this.user.id, 'starred'], range),
      ],
      range.reverse,
    );
  }
}

export interface PlanOptions {
  /** Leave out muted messages, channel muting only when the narrow names no channel (first_unread). */
  excludeMuted?: boolean;
  /** Search the user's own messages even where the narrow could read channel history. */
  ownOnly?: boolean;
}

export function planNarrow(shard: Shard, realm: RealmState, user: UserRecord, terms: NarrowTerm[], opts: PlanOptions = {}): NarrowPlan {
  const p = new Planner(shard, realm, user);
  for (const term of terms) p.add(term);
  const search = p.searchTerms();
  const history = !opts.ownOnly && p.history();
  p.channelDriver(history);
  if (history) p.publicChannelsDriver(terms);
  if (opts.excludeMuted) {
    // As the reference's first-unread search: muted topics always, muted channels only when the
    // narrow does not name one.
    const namesChannel = terms.some((t) => CHANNEL_OPERATORS.has(t.operator));
    p.tests.push((c) => !(namesChannel ? isTopicMutedByUser(p.realm, p.user.id, c.msg) : p.muted(c.msg)));
  }

  const best = p.drivers.reduce<Driver | null>((a, d) => (a === null || d.rank < a.rank ? d : a), null);
  const base = (range: IdRange) => (best ? best.ids(range) : p.ownIds(range));
  const mark = readMark(realm, user.id);
  // Unread messages are above the read mark, or below it with a flip: the driver's ids above
  // the mark, and the flips below it, which are few.
  const candidates =
    p.unread && (best === null || best.rank > 0)
      ? (range: IdRange) => {
          const above = clip(range, mark + 1, Number.MAX_SAFE_INTEGER);
          const below = clip(range, 0, mark);
          const sources: Iterable<number>[] = [];
          if (above) sources.push(base(above));
          if (below) sources.push(flipIds(shard.store.flips, realm.id, user.id, below));
          return mergeIds(sources, range.reverse);
        }
      : base;

  const member = history
    ? (msg: MessageRecord) => canAccessMessage(realm, user, msg)
    : (msg: MessageRecord) =>
        (received(realm, user.id, msg) || (storedBits(shard, realm, user.id, msg.id) & FLAG.historical) !== 0) && canAccessMessage(realm, user, msg);

  const exact = exactChannel(terms, history, opts.excludeMuted === true, search, p.positiveChannel());

  return {
    history,
    candidates,
    exact,
    indexed: !best?.given,
    search,
    matches(msg) {
      if (msg.realmId !== realm.id || !member(msg)) return false;
      let bits: number | undefined;
      const ctx: Ctx = { msg, bits: () => (bits ??= flagBits(shard, realm, user.id, msg)) };
      return p.tests.every((test) => test(ctx));
    },
  };
}
