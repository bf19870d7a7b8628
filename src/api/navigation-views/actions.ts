import { ApiError, badRequest } from '../../lib/errors.js';
import type { NavigationViewRecord } from '../../model/personal.js';
import type { RealmState } from '../../model/realm-state.js';
import type { UserRecord } from '../../model/types.js';
import type { Shard } from '../../shard/shard.js';
import { userRows } from '../../store/personal.js';
import { writeOwnRow } from '../../api-kit/personal.js';

/**
 * Navigation views (feature level 390): the left-sidebar views a user pins or hides, and custom
 * views they name, each known by its URL fragment ("inbox", "narrow/is/alerted"). Kept for the
 * user alone, after the reference's zerver/actions/navigation_views.py.
 */

/** The reference's built-in views: their names are the app's, so a request may not set one. */
export const BUILT_IN_FRAGMENTS = new Set(['inbox', 'recent', 'feed', 'drafts', 'reactions', 'mentions', 'starred', 'scheduled', 'reminders']);

/** NavigationView.name's and .fragment's column lengths in the reference. */
export const MAX_NAME_LENGTH = 100;
export const MAX_FRAGMENT_LENGTH = 255;

export const viewNotFound = () => new ApiError('Navigation view does not exist.', { status: 404 });

const key = (realm: RealmState, userId: number, fragment: string) => [realm.id, userId, fragment];

export const navigationView = (v: NavigationViewRecord) => ({ fragment: v.fragment, is_pinned: v.isPinned, name: v.name });

/** The user's views, oldest first (the reference lists them by id). */
export function listViews(shard: Shard, realm: RealmState, userId: number): NavigationViewRecord[] {
  return userRows<NavigationViewRecord>(shard.store.navigationViews, realm.id, userId).sort((a, b) => a.id - b.id);
}

export function checkFragment(raw: string): string {
  const fragment = raw.trim();
  if (fragment === '') throw badRequest('fragment cannot be blank');
  if ([...fragment].length > MAX_FRAGMENT_LENGTH) throw badRequest(`fragment is too long (limit: ${MAX_FRAGMENT_LENGTH} characters)`);
  return fragment;
}

/** A name as stored: built-in views take none, custom views need one. */
export function checkName(fragment: string, raw: string | undefined | null): string | null {
  const name = raw?.trim() || null;
  if (BUILT_IN_FRAGMENTS.has(fragment)) {
    if (name !== null) throw badRequest('Built-in views cannot have a custom name.');
    return null;
  }
  if (name === null) throw badRequest('Custom views must have a valid name.');
  if ([...name].length > MAX_NAME_LENGTH) throw badRequest(`name is too long (limit: ${MAX_NAME_LENGTH} characters)`);
  return name;
}

export function ownView(shard: Shard, realm: RealmState, user: UserRecord, fragment: string): NavigationViewRecord {
  const view = shard.read<NavigationViewRecord>(shard.store.navigationViews, key(realm, user.id, fragment));
  if (!view) throw viewNotFound();
  return view;
}

export async function doAddView(shard: Shard, realm: RealmState, user: UserRecord, fragment: string, isPinned: boolean, name: string | null): Promise<void> {
  if (shard.read(shard.store.navigationViews, key(realm, user.id, fragment))) throw badRequest('Navigation view already exists.');
  const batch = shard.batch();
  const view: NavigationViewRecord = { id: shard.allocate(batch, 'navigationView'), fragment, isPinned, name };
  batch.put(shard.store.navigationViews, key(realm, user.id, fragment), view);
  batch.emit(realm.id, { type: 'navigation_view', op: 'add', navigation_view: navigationView(view) }, [user.id]);
  await batch.commit();
}

export async function doUpdateView(shard: Shard, realm: RealmState, user: UserRecord, view: NavigationViewRecord, change: { isPinned?: boolean; name?: string | null }): Promise<void> {
  const data: Record<string, unknown> = {};
  if (change.isPinned !== undefined) data.is_pinned = change.isPinned;
  if (change.name !== undefined) data.name = change.name;
  const updated = { ...view, ...change };
  await writeOwnRow(shard, realm, user.id, shard.store.navigationViews, key(realm, user.id, view.fragment), updated, { type: 'navigation_view', op: 'update', fragment: view.fragment, data });
}

export async function doRemoveView(shard: Shard, realm: RealmState, user: UserRecord, view: NavigationViewRecord): Promise<void> {
  await writeOwnRow(shard, realm, user.id, shard.store.navigationViews, key(realm, user.id, view.fragment), undefined, { type: 'navigation_view', op: 'remove', fragment: view.fragment });
}
