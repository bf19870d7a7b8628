import { Narrow } from '../store/narrow.js';

/** What the main area shows, from the URL hash: a message view (a narrow), recent conversations, or settings. */
export type Route = { kind: 'narrow'; narrow: Narrow } | { kind: 'recent' } | { kind: 'settings'; section: string };

export function routeOf(hash: string, selfId: number): Route {
  if (hash === '#recent') return { kind: 'recent' };
  if (hash.startsWith('#settings') || hash.startsWith('#organization')) return { kind: 'settings', section: hash.split('/')[1] ?? 'profile' };
  return { kind: 'narrow', narrow: Narrow.fromHash(hash, selfId) ?? Narrow.all };
}
