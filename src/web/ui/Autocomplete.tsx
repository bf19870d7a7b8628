import { useEffect, useState } from 'preact/hooks';
import type { Store } from '../store/store.js';
import { emojiNames, matchEmoji } from './EmojiPicker.js';
import { compareNames, emojiChar } from './util.js';

/**
 * Typeahead for the message box: `@` people (written `@**Full Name**`) and groups (`@*name*`), `#` channels
 * (`#**channel**`) and `:` emoji (`:name:`), from the text before the caret. Arrow keys choose,
 * Enter or Tab accepts, Escape closes; the list is an ARIA listbox tied to the textarea.
 */
export interface Suggestion {
  label: string;
  detail?: string;
  icon?: string;
  insert: string;
}

interface Trigger {
  kind: '@' | '#' | ':';
  start: number;
  query: string;
}

export function triggerAt(text: string, caret: number): Trigger | null {
  const before = text.slice(0, caret);
  const m = /(^|[\s(])([@#])(\*\*)?([^*@#\n]{0,30})$/.exec(before) ?? /(^|[\s(])(:)()([a-z0-9_+-]{2,30})$/i.exec(before);
  if (!m) return null;
  return { kind: m[2] as Trigger['kind'], start: before.length - m[0].length + m[1].length, query: m[4] };
}

export function suggestions(store: Store, t: Trigger, emoji: [string, string][]): Suggestion[] {
  const q = t.query.toLowerCase().trim();
  if (t.kind === '@') {
    const people = [...store.users.values()].filter((u) => u.is_active !== false && u.user_id !== store.selfId && (u.full_name.toLowerCase().includes(q) || u.email.toLowerCase().startsWith(q)));
    people.sort((a, b) => Number(a.is_bot) - Number(b.is_bot) || Number(!a.full_name.toLowerCase().startsWith(q)) - Number(!b.full_name.toLowerCase().startsWith(q)) || compareNames(a.full_name, b.full_name));
    const wild = ['all', 'everyone', 'channel', 'topic'].filter((w) => q && w.startsWith(q)).map((w) => ({ label: w, detail: 'notify everyone', insert: `@**${w}** ` }));
    // User groups: the server checks who may mention each (can_mention_group).
    const groups = store.groups.named().filter((g) => g.name.toLowerCase().includes(q)).slice(0, 4);
    return [
      ...people.slice(0, 8).map((u) => ({ label: u.full_name, detail: u.email, insert: `@**${u.full_name}** ` })),
      ...groups.map((g) => ({ label: g.name, detail: g.description || 'group', insert: `@*${g.name}* ` })),
      ...wild,
    ];
  }
  if (t.kind === '#') {
    return [...store.streams.values()]
      .filter((s) => s.name.toLowerCase().includes(q))
      .sort((a, b) => Number(!a.name.toLowerCase().startsWith(q)) - Number(!b.name.toLowerCase().startsWith(q)) || compareNames(a.name, b.name))
      .slice(0, 8)
      .map((s) => ({ label: `#${s.name}`, detail: s.description, insert: `#**${s.name}** ` }));
  }
  return matchEmoji(store, emoji, q, 8).map((e) => ({ label: `:${e.name}:`, icon: e.type === 'unicode_emoji' ? emojiChar(e.code) : '', insert: `:${e.name}: ` }));
}

/** State and key handling for a textarea's typeahead; `apply` writes the accepted text. */
export function useTypeahead(store: Store, text: string, caret: number, apply: (text: string, caret: number) => void) {
  const [emoji, setEmoji] = useState<[string, string][]>([]);
  const [index, setIndex] = useState(0);
  const [closedAt, setClosedAt] = useState<string | null>(null);
  const trigger = triggerAt(text, caret);
  useEffect(() => {
    if (trigger?.kind === ':' && emoji.length === 0) void emojiNames(store).then(setEmoji);
  }, [trigger?.kind]);
  const key = trigger ? `${trigger.start}:${trigger.query}` : null;
  const items = trigger && key !== closedAt ? suggestions(store, trigger, emoji) : [];
  const i = Math.min(index, Math.max(0, items.length - 1));

  const accept = (s: Suggestion) => {
    const end = caret;
    const next = text.slice(0, trigger!.start) + s.insert + text.slice(end);
    apply(next, trigger!.start + s.insert.length);
    setIndex(0);
  };

  /** True when the key was the typeahead's. */
  const onKeyDown = (e: KeyboardEvent): boolean => {
    if (items.length === 0) return false;
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      setIndex((i + (e.key === 'ArrowDown' ? 1 : items.length - 1)) % items.length);
    } else if (e.key === 'Enter' || e.key === 'Tab') accept(items[i]);
    else if (e.key === 'Escape') setClosedAt(key);
    else return false;
    e.preventDefault();
    e.stopPropagation();
    return true;
  };

  const list = items.length ? (
    <ul class="typeahead" role="listbox" id="compose-typeahead" aria-label="Suggestions">
      {items.map((s, n) => (
        <li
          role="option"
          id={`typeahead-${n}`}
          aria-selected={n === i}
          class={n === i ? 'active' : ''}
          onMouseDown={(e) => {
            e.preventDefault();
            accept(s);
          }}
        >
          {s.icon && <span aria-hidden="true">{s.icon} </span>}
          <b>{s.label}</b>
          {s.detail && <small> {s.detail}</small>}
        </li>
      ))}
    </ul>
  ) : null;
  return { list, onKeyDown, activeId: items.length ? `typeahead-${i}` : undefined, open: items.length > 0 };
}
