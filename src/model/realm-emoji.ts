import type { RealmState } from './realm-state.js';
import type { RealmEmojiRecord } from './types.js';

/**
 * Custom emoji as clients see them (the reference's EmojiInfo), and the lookups the renderer and
 * reactions use. Every list is of the realm's emoji, deactivated ones included, keyed by id as a
 * string: GET /realm/emoji, /register's realm_emoji and the realm_emoji update event. Below the
 * API, since messages (rendering, reactions) read them as much as api/emoji/ does.
 */
export interface RealmEmojiView {
  id: string;
  name: string;
  source_url: string;
  still_url: string | null;
  deactivated: boolean;
  author_id: number | null;
}

/** The reference's local-storage URL of an emoji image (relative to the realm). */
export function emojiImageUrl(realmId: number, fileName: string): string {
  return `/user_avatars/${realmId}/emoji/images/${fileName}`;
}

export function realmEmojiView(rec: RealmEmojiRecord): RealmEmojiView {
  return {
    id: String(rec.id),
    name: rec.name,
    source_url: emojiImageUrl(rec.realmId, rec.fileName),
    still_url: rec.stillFileName ? emojiImageUrl(rec.realmId, `still/${rec.stillFileName}`) : null,
    deactivated: rec.deactivated,
    author_id: rec.authorId,
  };
}

export function realmEmojiViews(realm: RealmState): Record<string, RealmEmojiView> {
  const out: Record<string, RealmEmojiView> = {};
  for (const rec of realm.realmEmoji.values()) out[String(rec.id)] = realmEmojiView(rec);
  return out;
}

/** The active emoji with a name (at most one: names are unique among active emoji). */
export function activeRealmEmoji(realm: RealmState, name: string): RealmEmojiRecord | undefined {
  return activeByName(realm)[name];
}

export type RenderEmoji = Record<string, { id: string; sourceUrl: string }>;

const renderCache = new WeakMap<RealmState, { byName: Record<string, RealmEmojiRecord>; render: RenderEmoji }>();

function cached(realm: RealmState) {
  let hit = renderCache.get(realm);
  if (!hit) {
    const byName: Record<string, RealmEmojiRecord> = Object.create(null);
    const render: RenderEmoji = Object.create(null);
    for (const rec of realm.realmEmoji.values()) {
      if (rec.deactivated) continue;
      byName[rec.name] = rec;
      render[rec.name] = { id: String(rec.id), sourceUrl: emojiImageUrl(rec.realmId, rec.fileName) };
    }
    renderCache.set(realm, (hit = { byName, render }));
  }
  return hit;
}

function activeByName(realm: RealmState): Record<string, RealmEmojiRecord> {
  return cached(realm).byName;
}

/** The renderer's `realmEmoji`: active emoji by name, built once per change (sends are hot). */
export function renderRealmEmoji(realm: RealmState): RenderEmoji {
  return cached(realm).render;
}

/** Called by every change to a realm's emoji. */
export function realmEmojiChanged(realm: RealmState): void {
  renderCache.delete(realm);
}
