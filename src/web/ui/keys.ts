import { Narrow } from '../store/narrow.js';
import type { Store } from '../store/store.js';
import { openCompose } from './compose-state.js';
import { compareNames, hashOf } from './util.js';

/**
 * The reference's main keyboard shortcuts, outside text fields: `c` new message in the view's
 * channel, `x` new direct message, `r` reply to the selected message, `/` search, `n` next
 * topic with unread messages, Escape back to the message list. Arrows move between messages
 * (Feed.tsx); every control is also reachable with Tab.
 */
export function installShortcuts(ctx: { store: Store; search: () => void }): () => void {
  const onKey = (e: KeyboardEvent) => {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const target = e.target as HTMLElement;
    // A dialog (edit history, an image) has its own keys; the browser closes it on Escape.
    if (target.closest('dialog')) return;
    const typing = target.closest('input, textarea, select, [contenteditable=true]');
    if (e.key === 'Escape') {
      if (typing) (typing as HTMLElement).blur();
      const selected = document.querySelector<HTMLElement>('.message.selected') ?? document.querySelector<HTMLElement>('.message:last-of-type');
      selected?.focus();
      return;
    }
    if (typing) return;
    const { store } = ctx;
    const narrow = store.list?.narrow ?? Narrow.all;
    switch (e.key) {
      case 'c':
        e.preventDefault();
        openCompose(store, narrow.dmIds ? Narrow.all : narrow, true, 'stream');
        break;
      case 'x':
        e.preventDefault();
        openCompose(store, narrow.dmIds ? narrow : Narrow.dm([]), true, 'private');
        break;
      case 'r': {
        const selected = document.querySelector<HTMLElement>('.message.selected');
        if (!selected) return;
        e.preventDefault();
        selected.dispatchEvent(new KeyboardEvent('keydown', { key: 'r', bubbles: true }));
        break;
      }
      case '/':
        e.preventDefault();
        ctx.search();
        break;
      case 'n': {
        e.preventDefault();
        const next = nextUnreadTopic(store, narrow);
        if (next) location.hash = hashOf(store, next);
        break;
      }
      case 'ArrowDown':
      case 'ArrowUp':
      case 'j':
      case 'k': {
        // From anywhere outside a field: into the message list.
        if (target.closest('.feed')) return;
        e.preventDefault();
        (document.querySelector<HTMLElement>('.message.selected') ?? document.querySelector<HTMLElement>('.message:last-of-type'))?.focus();
        break;
      }
      default:
    }
  };
  document.addEventListener('keydown', onKey);
  return () => document.removeEventListener('keydown', onKey);
}

/** The next unmuted topic with unread messages after the open one, in sidebar order. */
function nextUnreadTopic(store: Store, narrow: Narrow): Narrow | null {
  const subs = [...store.subs.values()].filter((s) => !s.is_muted).sort((a, b) => compareNames(a.name, b.name));
  const all: Narrow[] = [];
  for (const s of subs) for (const [topic] of store.unreads.streamTopics(s.stream_id)) if (!store.isTopicMuted(s.stream_id, topic)) all.push(Narrow.topic(s.stream_id, topic));
  if (all.length === 0) return null;
  const at = all.findIndex((n) => n.equals(narrow));
  return all[(at + 1) % all.length];
}
