import { useEffect, useRef, useState } from 'preact/hooks';
import type { Store } from '../store/store.js';
import { emojiChar } from './util.js';

/**
 * The reaction picker: the server's emoji names (the file at server_emoji_data_url, the same
 * table reactions and Markdown accept) and the organization's custom emoji, searched by name.
 */
export interface PickedEmoji {
  name: string;
  code: string;
  type: 'unicode_emoji' | 'realm_emoji';
}

let table: Promise<[string, string][]> | null = null;

/** name -> code for every server emoji name, aliases included, fetched once. */
export function emojiNames(store: Store): Promise<[string, string][]> {
  // Its path on this site: the URL names the server's external host, which may not be the one
  // this page was opened at.
  const url = new URL(store.snapshot.server_emoji_data_url ?? '/static/generated/emoji/emoji_api.json', location.href);
  table ??= fetch(url.pathname, { credentials: 'same-origin' })
    .then((r) => r.json())
    .then((data: { code_to_names: Record<string, string[]> }) => Object.entries(data.code_to_names).flatMap(([code, names]) => names.map((n) => [n, code] as [string, string])));
  return table;
}

export function matchEmoji(store: Store, names: [string, string][], query: string, limit: number): PickedEmoji[] {
  const q = query.toLowerCase();
  const out: PickedEmoji[] = [];
  for (const e of store.realmEmoji.values()) if (!e.deactivated && e.name.includes(q)) out.push({ name: e.name, code: e.id, type: 'realm_emoji' });
  const starts = names.filter(([n]) => n.startsWith(q));
  const contains = q ? names.filter(([n]) => !n.startsWith(q) && n.includes(q)) : [];
  for (const [name, code] of [...starts, ...contains]) {
    if (out.length >= limit) break;
    out.push({ name, code, type: 'unicode_emoji' });
  }
  return out.slice(0, limit);
}

export function EmojiPicker({ store, onPick, onClose }: { store: Store; onPick: (e: PickedEmoji) => void; onClose: () => void }) {
  const [names, setNames] = useState<[string, string][]>([]);
  const [query, setQuery] = useState('');
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    void emojiNames(store).then(setNames);
    input.current?.focus();
  }, []);
  const shown = matchEmoji(store, names, query, 80);
  return (
    <div class="emoji-picker" role="dialog" aria-label="Choose an emoji" onKeyDown={(e) => e.key === 'Escape' && (e.stopPropagation(), onClose())}>
      <input
        ref={input}
        type="search"
        aria-label="Search emoji"
        placeholder="Search emoji"
        value={query}
        onInput={(e) => setQuery((e.target as HTMLInputElement).value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && shown[0]) {
            e.preventDefault();
            onPick(shown[0]);
          }
        }}
      />
      <div class="emoji-grid">
        {shown.map((e) => {
          const custom = e.type === 'realm_emoji' ? store.realmEmoji.get(e.code) : undefined;
          return (
            <button type="button" key={`${e.type}:${e.name}`} aria-label={`:${e.name}:`} title={`:${e.name}:`} data-emoji={e.name} onClick={() => onPick(e)}>
              {custom ? <img src={custom.source_url} alt="" width={22} height={22} /> : emojiChar(e.code)}
            </button>
          );
        })}
      </div>
    </div>
  );
}
