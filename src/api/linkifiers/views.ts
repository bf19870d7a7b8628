import type { RealmState } from '../../model/realm-state.js';
import type { RealmRecord } from '../../model/types.js';

export type StoredLinkifier = NonNullable<RealmRecord['linkifiers']>[number];

export interface LinkifierView {
  id: number;
  pattern: string;
  url_template: string;
}

export function linkifierView(linkifier: StoredLinkifier): LinkifierView {
  return { id: linkifier.id, pattern: linkifier.pattern, url_template: linkifier.urlTemplate };
}

/**
 * The realm's linkifiers as GET /realm/linkifiers, the `realm_linkifiers` event and the
 * /register `realm_linkifiers` section give them: in the order they apply.
 */
export function linkifiersView(realm: RealmState): LinkifierView[] {
  return (realm.realm.linkifiers ?? []).map(linkifierView);
}
