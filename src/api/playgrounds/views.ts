import type { RealmState } from '../../model/realm-state.js';

/** The realm's code playgrounds, as /register's realm_playgrounds and its event list them. */
export function playgroundsView(realm: RealmState): Record<string, unknown>[] {
  return (realm.realm.playgrounds ?? []).map((p) => ({ id: p.id, name: p.name, pygments_language: p.pygmentsLanguage, url_template: p.urlTemplate }));
}
