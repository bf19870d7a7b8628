import { Component, h, type ComponentType, type FunctionComponent } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { Store } from '../store/store.js';
import { Narrow } from '../store/narrow.js';

/** Re-renders the component whenever the store says it changed. */
export function useStore(store: Store): number {
  const [, setVersion] = useState(store.version);
  useEffect(() => store.subscribe(() => setVersion(store.version)), [store]);
  return store.version;
}

export function hashOf(store: Store, narrow: Narrow): string {
  return narrow.toHash({ stream: (id) => store.streamName(id), user: (id) => store.users.get(id)?.full_name ?? String(id) });
}

/*
 * Dates and names are formatted through Intl objects made once: toLocaleString() and
 * localeCompare() build a formatter or collator per call, which a feed of a hundred messages
 * and a sidebar of a hundred channels would pay on every render (seen in W1's profile).
 */
const timeFormats = new Map<boolean, Intl.DateTimeFormat>();
const dayFormats = new Map<boolean, Intl.DateTimeFormat>();
let fullFormat: Intl.DateTimeFormat | null = null;
const collator = new Intl.Collator(undefined, { sensitivity: 'base', numeric: true });

/** Names in the reader's language order (channels, people). */
export const compareNames = (a: string, b: string) => collator.compare(a, b);

export function formatTime(seconds: number, twentyFour: boolean): string {
  let f = timeFormats.get(twentyFour);
  if (!f) timeFormats.set(twentyFour, (f = new Intl.DateTimeFormat([], { hour: 'numeric', minute: '2-digit', hour12: !twentyFour })));
  return f.format(seconds * 1000);
}

export function formatFull(seconds: number): string {
  fullFormat ??= new Intl.DateTimeFormat([], { dateStyle: 'full', timeStyle: 'medium' });
  return fullFormat.format(seconds * 1000);
}

/** The day a message was sent, as its recipient bar names it ("Today", "Tue, Mar 4"). */
export function formatDay(seconds: number): string {
  const day = Math.floor((seconds * 1000 - new Date(seconds * 1000).getTimezoneOffset() * 60_000) / 86_400_000);
  const cached = dayNames.get(day);
  if (cached !== undefined) return cached;
  const d = new Date(seconds * 1000);
  const today = new Date();
  let text: string;
  if (d.toDateString() === today.toDateString()) text = 'Today';
  else {
    const thisYear = d.getFullYear() === today.getFullYear();
    let f = dayFormats.get(thisYear);
    if (!f) dayFormats.set(thisYear, (f = new Intl.DateTimeFormat([], { weekday: 'short', month: 'short', day: 'numeric', year: thisYear ? undefined : 'numeric' })));
    text = f.format(d);
    // "Today" changes at midnight; other days' names do not.
    dayNames.set(day, text);
  }
  return text;
}

const dayNames = new Map<number, string>();

/** A Unicode emoji from its code ("1f44d", "1f468-200d-1f4bb"). */
export function emojiChar(code: string): string {
  try {
    return String.fromCodePoint(...code.split('-').map((c) => parseInt(c, 16)));
  } catch {
    return code;
  }
}

/** A person's presence, as the reference's web app reckons it from the two timestamps. */
export function presenceOf(store: Store, userId: number): 'active' | 'idle' | 'offline' {
  const p = store.presence.get(userId);
  if (!p) return 'offline';
  const now = Math.max(store.serverTimestamp, Date.now() / 1000);
  const threshold = store.realm.presence_offline_threshold_seconds ?? 140;
  if (now - p.active < threshold) return 'active';
  if (now - p.idle < threshold) return 'idle';
  return 'offline';
}

/** The names of a DM conversation's other participants (none: oneself). */
export function dmTitle(store: Store, ids: readonly number[]): string {
  if (ids.length === 0) return `${store.self.full_name} (you)`;
  return ids.map((id) => store.userName(id)).join(', ');
}

export function narrowTitle(store: Store, narrow: Narrow): string {
  if (narrow.terms.length === 0) return 'All messages';
  const sid = narrow.streamId;
  if (sid !== undefined && narrow.topic !== undefined) return `#${store.streamName(sid)} › ${narrow.topic || store.realm.empty_topic_display_name || 'general chat'}`;
  if (sid !== undefined && narrow.terms.length === 1) return `#${store.streamName(sid)}`;
  const dm = narrow.dmIds;
  if (dm && narrow.terms.length === 1) return dmTitle(store, dm);
  const is = narrow.term('is')?.operand;
  if (narrow.terms.length === 1 && is === 'starred') return 'Starred messages';
  if (narrow.terms.length === 1 && is === 'mentioned') return 'Mentions';
  if (narrow.terms.length === 1 && is === 'dm') return 'Direct messages';
  return `Search: ${searchText(store, narrow)}`;
}

/** A narrow as the search box writes it. */
export function searchText(store: Store, narrow: Narrow): string {
  return narrow.terms
    .map((t) => {
      const op = (t.negated ? '-' : '') + t.operator;
      if (t.operator === 'search') return String(t.operand);
      if (t.operator === 'channel') return `${op}:${quote(store.streamName(t.operand as number))}`;
      if (t.operator === 'sender') return `${op}:${store.users.get(t.operand as number)?.email ?? t.operand}`;
      if (t.operator === 'dm') return `${op}:${(t.operand as number[]).map((id) => store.users.get(id)?.email ?? id).join(',')}`;
      return `${op}:${quote(String(t.operand))}`;
    })
    .join(' ');
}

const quote = (s: string) => (/\s/.test(s) ? `"${s}"` : s);

const OPERATORS = new Set(['channel', 'stream', 'topic', 'subject', 'dm', 'pm-with', 'sender', 'from', 'is', 'has', 'id', 'near', 'dm-including', 'channels', 'search']);

/**
 * The search box's text as a narrow: `operator:operand` terms (`-` negates, quotes keep spaces)
 * and the remaining words as one search term. Channels and people are looked up by name or
 * address, as typed; an unknown one stays text, which the server then answers.
 */
export function parseSearch(store: Store, text: string): Narrow {
  const terms: { operator: string; operand: any; negated?: boolean }[] = [];
  const words: string[] = [];
  const re = /(-?)([\w-]+):("([^"]*)"|\S+)|"([^"]*)"|(\S+)/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text))) {
    if (m[2] && OPERATORS.has(m[2].toLowerCase())) {
      let operator = m[2].toLowerCase();
      let operand: any = m[4] ?? m[3];
      if (operator === 'stream') operator = 'channel';
      if (operator === 'subject') operator = 'topic';
      if (operator === 'pm-with') operator = 'dm';
      if (operator === 'from') operator = 'sender';
      if (operator === 'channel') {
        const sub = [...store.streams.values()].find((s) => s.name.toLowerCase() === String(operand).toLowerCase());
        operand = sub ? sub.stream_id : operand;
      }
      const person = (s: string) => (s === 'me' ? store.selfId : [...store.users.values()].find((u) => u.email.toLowerCase() === s.toLowerCase() || u.full_name.toLowerCase() === s.toLowerCase())?.user_id);
      if (operator === 'sender') operand = person(String(operand)) ?? operand;
      if (operator === 'dm') {
        const ids = String(operand).split(',').map((s) => person(s.trim()));
        operand = ids.every((id) => id !== undefined) ? (ids as number[]).filter((id) => id !== store.selfId).sort((a, b) => a - b) : operand;
      }
      terms.push(m[1] ? { operator, operand, negated: true } : { operator, operand });
    } else words.push(m[5] ?? m[0]);
  }
  if (words.length) terms.push({ operator: 'search', operand: words.join(' ') });
  return Narrow.of(terms);
}

/**
 * A component drawn again only when `same` says its props changed (preact/compat's memo, without
 * the compat layer's other patches to Preact).
 */
export function memo<P extends object>(render: FunctionComponent<P>, same: (a: P, b: P) => boolean): ComponentType<P> {
  class Memo extends Component<P> {
    shouldComponentUpdate(next: P): boolean {
      return !same(this.props as P, next);
    }
    render(props: P) {
      return h(render, props);
    }
  }
  return Memo as unknown as ComponentType<P>;
}
