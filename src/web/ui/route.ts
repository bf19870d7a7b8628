import { Narrow } from '../store/narrow.js';

/**
 * What the main area shows, from the URL hash: a message view (a narrow), recent conversations,
 * the drafts, or settings (`#settings/<section>[/<id>]`, `#channels/<id>` for one channel's).
 */
export type Route = { kind: 'narrow'; narrow: Narrow } | { kind: 'recent' } | { kind: 'drafts' } | { kind: 'settings'; section: string; id?: number };

export function routeOf(hash: string, selfId: number): Route {
  if (hash === '#recent') return { kind: 'recent' };
  if (hash === '#drafts') return { kind: 'drafts' };
  const channel = /^#channels\/(\d+)/.exec(hash);
  if (channel) return { kind: 'settings', section: 'channel', id: Number(channel[1]) };
  if (hash.startsWith('#settings') || hash.startsWith('#organization')) {
    const [, section, id] = hash.split('/');
    return { kind: 'settings', section: section ?? 'profile', ...(id && /^\d+$/.test(id) ? { id: Number(id) } : {}) };
  }
  return { kind: 'narrow', narrow: Narrow.fromHash(hash, selfId) ?? Narrow.all };
}
