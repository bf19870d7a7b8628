import { call } from '../api.js';
import { Narrow } from '../store/narrow.js';
import type { Store } from '../store/store.js';
import type { Draft, Message } from '../types.js';
import { hashOf } from './util.js';

/**
 * What the compose box is writing, and to whom. It lives here, outside the store: a re-register
 * (a new store) or a change of view keeps it. Anything may aim the box (a view, a reply, a
 * draft from the list); Compose.tsx draws it and listens for changes.
 */
export const compose = { type: 'stream' as 'stream' | 'private', stream: '', topic: '', to: '', content: '', draftId: null as number | null, focus: 0 };
export const listeners = new Set<() => void>();
export const changed = () => listeners.forEach((fn) => fn());

/** The compose box aimed at a view's conversation; `focus` puts the cursor in it. */
export function openCompose(store: Store, narrow: Narrow, focus: boolean, kind?: 'stream' | 'private'): void {
  const sid = narrow.streamId;
  if (kind === 'private' || (kind === undefined && narrow.dmIds)) {
    compose.type = 'private';
    compose.to = (narrow.dmIds ?? []).map((id) => store.users.get(id)?.email ?? '').filter(Boolean).join(', ');
  } else if (sid !== undefined || kind === 'stream') {
    compose.type = 'stream';
    if (sid !== undefined) compose.stream = store.streamName(sid);
    compose.topic = narrow.topic ?? (sid !== undefined ? '' : compose.topic);
  }
  if (!compose.content) restoreDraft(store, narrow);
  if (focus) compose.focus++;
  changed();
}

/** A draft the server keeps for this conversation (from this or another device) fills an empty box. */
export function restoreDraft(store: Store, narrow: Narrow): boolean {
  const sid = narrow.streamId;
  const ids = narrow.dmIds ? [...narrow.dmIds].sort((a, b) => a - b).join(',') : null;
  const draft = store.drafts.find((d) =>
    sid !== undefined && narrow.topic !== undefined
      ? d.type === 'stream' && d.to[0] === sid && d.topic.toLowerCase() === narrow.topic.toLowerCase()
      : ids !== null && d.type === 'private' && [...d.to].sort((a, b) => a - b).join(',') === ids,
  );
  if (!draft) return false;
  compose.content = draft.content;
  compose.draftId = draft.id ?? null;
  return true;
}

/**
 * A draft from the drafts list: the compose box aimed at its conversation and holding it. What
 * was in the box stays a draft on the server (it was saved while typed) and is listed there.
 */
export function openDraft(store: Store, d: Draft): void {
  if (d.type === 'stream') {
    compose.type = 'stream';
    compose.stream = store.streamName(d.to[0]);
    compose.topic = d.topic;
  } else {
    compose.type = 'private';
    compose.to = d.to.filter((id) => id !== store.selfId).map((id) => store.users.get(id)?.email ?? '').filter(Boolean).join(', ');
  }
  compose.content = d.content;
  compose.draftId = d.id ?? null;
  compose.focus++;
  changed();
}

export function replyTo(store: Store, msg: Message): void {
  const others = Array.isArray(msg.display_recipient) ? msg.display_recipient.map((r) => r.id).filter((id) => id !== store.selfId) : [];
  openCompose(store, msg.type === 'stream' ? Narrow.topic(msg.stream_id!, msg.subject) : Narrow.dm(others), true);
}

export async function quoteAndReply(store: Store, msg: Message): Promise<void> {
  replyTo(store, msg);
  const raw = (await call('GET', `/messages/${msg.id}`, { apply_markdown: false })).message.content as string;
  const link = `${location.origin}/${hashOf(store, (msg.type === 'stream' ? Narrow.topic(msg.stream_id!, msg.subject) : Narrow.dm([])).withNear(msg.id))}`;
  const quote = `@_**${msg.sender_full_name}|${msg.sender_id}** [said](${link}):\n\`\`\`quote\n${raw}\n\`\`\`\n`;
  compose.content = compose.content ? `${compose.content}\n${quote}` : quote;
  compose.focus++;
  changed();
}

/** The API's recipient of what is being written, or an error to show. */
export function target(store: Store): { params: Record<string, unknown>; typing: Record<string, unknown> } | string {
  if (compose.type === 'stream') {
    const s = [...store.streams.values()].find((x) => x.name.toLowerCase() === compose.stream.trim().toLowerCase());
    if (!s) return compose.stream.trim() ? `There is no channel named ${compose.stream.trim()}.` : 'Choose a channel.';
    return { params: { type: 'stream', to: s.stream_id, topic: compose.topic.trim() }, typing: { type: 'stream', stream_id: s.stream_id, topic: compose.topic.trim() } };
  }
  const names = compose.to.split(',').map((s) => s.trim()).filter(Boolean);
  const ids: number[] = [];
  for (const n of names) {
    const u = [...store.users.values()].find((x) => x.email.toLowerCase() === n.toLowerCase() || x.full_name.toLowerCase() === n.toLowerCase());
    if (!u) return `Unknown recipient: ${n}`;
    ids.push(u.user_id);
  }
  if (ids.length === 0) return 'Choose who to write to.';
  return { params: { type: 'direct', to: ids }, typing: { type: 'direct', to: ids } };
}

/** The text being written, kept as a draft on the server (POST /drafts, then PATCH). */
export async function saveDraft(store: Store): Promise<void> {
  const t = target(store);
  if (!compose.content.trim() || typeof t === 'string') return;
  const draft = { type: compose.type, to: t.params.type === 'stream' ? [t.params.to] : t.params.to, topic: compose.type === 'stream' ? compose.topic : '', content: compose.content, timestamp: Math.floor(Date.now() / 1000) };
  try {
    if (compose.draftId === null) compose.draftId = (await call('POST', '/drafts', { drafts: [draft] })).ids[0];
    else await call('PATCH', `/drafts/${compose.draftId}`, { draft });
  } catch {
    compose.draftId = null;
  }
}
