import { ApiError, badRequest } from '../../lib/errors.js';
import type { RealmState } from '../../model/realm-state.js';
import type { RealmRecord } from '../../model/types.js';
import type { Shard } from '../../shard/shard.js';
import type { WriteBatch } from '../../store/shard-store.js';
import { templateVariables } from '../linkifiers/validate.js';
import { playgroundsView } from './views.js';

/**
 * Code playgrounds, after the reference's RealmPlayground: an administrator's link from code
 * blocks of a language to an outside site. They change nothing in rendered messages: clients
 * offer the links. Stored on the realm record, like linkifiers, so a change writes it whole.
 */
type Playground = NonNullable<RealmRecord['playgrounds']>[number];

export interface PlaygroundInput {
  name: string;
  pygmentsLanguage: string;
  urlTemplate: string;
}

/** The reference's MAX_PYGMENTS_LANGUAGE_LENGTH. */
export const MAX_PYGMENTS_LANGUAGE_LENGTH = 40;
const PYGMENTS_LANGUAGE = /^[ a-zA-Z0-9_+\-./#]*$/;

/** The view's own check of pygments_language, before the model's. */
export function checkPygmentsLanguage(value: string): void {
  if ([...value].length > MAX_PYGMENTS_LANGUAGE_LENGTH) {
    throw badRequest(`pygments_language is too long (limit: ${MAX_PYGMENTS_LANGUAGE_LENGTH} characters)`);
  }
  if (!PYGMENTS_LANGUAGE.test(value)) throw badRequest('Invalid characters in pygments language');
}

/**
 * The model's full_clean: blank fields and the URL template's syntax by field (in the model's
 * field order), then that `code` is the template's only variable, then uniqueness of the
 * language and name in the realm. The first message is the error; all of them go under `errors`.
 */
function checkPlayground(realm: RealmRecord, input: PlaygroundInput): void {
  const errors: Record<string, string[]> = {};
  const add = (field: string, msg: string) => (errors[field] ??= []).push(msg);
  const variables = templateVariables(input.urlTemplate);
  if (input.urlTemplate === '') add('url_template', 'This field cannot be blank.');
  else if (!variables) add('url_template', 'Invalid URL template.');
  if (input.name === '') add('name', 'This field cannot be blank.');
  if (input.pygmentsLanguage === '') add('pygments_language', 'This field cannot be blank.');
  if (variables && (variables.length !== 1 || variables[0] !== 'code')) add('__all__', '"code" should be the only variable present in the URL template');
  const taken = (realm.playgrounds ?? []).some((p) => p.name === input.name && p.pygmentsLanguage === input.pygmentsLanguage);
  if (!errors.name && !errors.pygments_language && taken) add('__all__', 'Realm playground with this Realm, Pygments language and Name already exists.');
  const fields = Object.keys(errors);
  if (fields.length > 0) throw new ApiError(errors[fields[0]][0], { data: { errors } });
}

async function replacePlaygrounds(shard: Shard, realm: RealmState, batch: WriteBatch, playgrounds: Playground[]): Promise<void> {
  const record: RealmRecord = { ...realm.realm, playgrounds };
  realm.realm = record;
  batch.put(shard.store.realms, record.id, record);
  batch.emit(realm.id, { type: 'realm_playgrounds', realm_playgrounds: playgroundsView(realm) }, realm.activeUserIds());
  await batch.commit();
}

/** POST /realm/playgrounds; returns the new playground's id. */
export async function doAddPlayground(shard: Shard, realm: RealmState, input: PlaygroundInput): Promise<number> {
  checkPlayground(realm.realm, input);
  const batch = shard.batch();
  const id = shard.allocate(batch, 'playground');
  await replacePlaygrounds(shard, realm, batch, [...(realm.realm.playgrounds ?? []), { id, ...input }]);
  return id;
}

/** DELETE /realm/playgrounds/{playground_id}. */
export async function doRemovePlayground(shard: Shard, realm: RealmState, id: number): Promise<void> {
  const list = realm.realm.playgrounds ?? [];
  if (!list.some((p) => p.id === id)) throw badRequest('Invalid playground');
  await replacePlaygrounds(shard, realm, shard.batch(), list.filter((p) => p.id !== id));
}
