import { badRequest } from '../../lib/errors.js';
import type { RealmState } from '../../model/realm-state.js';
import { ROLE, type ProfileFieldRecord, type UserRecord } from '../../model/types.js';
import { usersWhoCanAccess } from '../../model/user-access.js';
import type { ShardEvent } from '../../shard/events.js';
import type { Shard } from '../../shard/shard.js';
import type { WriteBatch } from '../../store/shard-store.js';
import { renderMessage } from '../messages/render.js';
import { saveUser } from '../users/actions.js';
import {
  checkFieldDefinition,
  checkFieldValue,
  checkNameFree,
  checkSummaryLimit,
  DEFAULT_EXTERNAL_ACCOUNTS,
  FIELD_TYPE,
  isDefaultExternal,
  isRenderable,
  type FieldData,
} from './validate.js';
import { fieldsView } from './views.js';

/**
 * Custom profile fields and users' values for them, after the reference's
 * actions/custom_profile_fields.py. Fields live in RealmState.people and the profileFields
 * table; values on the user records (UserRecord.profileData), so that the user lists /register
 * serves from its cache carry them. Every change to the fields sends the whole list as a
 * `custom_profile_fields` event to the realm; every change to a value, realm_user update with
 * `custom_profile_field` to those who can access the user.
 */
export const fieldNotFound = (id: number) => badRequest(`Field id ${id} not found.`);

export function fieldById(realm: RealmState, id: number): ProfileFieldRecord {
  const field = realm.people.profileFields.get(id);
  if (!field) throw fieldNotFound(id);
  return field;
}

/** Fields whose type keeps `field_data`; the others store ''. */
const keepsData = (type: number) => type === FIELD_TYPE.SELECT || type === FIELD_TYPE.EXTERNAL_ACCOUNT;

function emitFields(realm: RealmState, batch: WriteBatch): void {
  batch.emit(realm.id, { type: 'custom_profile_fields', fields: fieldsView(realm) }, realm.activeUserIds());
}

export interface CreateFieldParams {
  name: string;
  hint: string;
  field_type: number;
  field_data: FieldData;
  display_in_profile_summary: boolean;
  required: boolean;
  editable_by_user: boolean;
}

/** POST /realm/profile_fields: checks in the reference's order, then the new field, last in order. */
export async function doCreateField(shard: Shard, realm: RealmState, p: CreateFieldParams): Promise<number> {
  const name = p.name.trim();
  if (p.display_in_profile_summary) checkSummaryLimit(realm);
  checkFieldDefinition({ name, hint: p.hint, type: p.field_type, fieldData: p.field_data, displayInProfileSummary: p.display_in_profile_summary });
  // A known external account takes the server's label and hint, and keeps only its subtype.
  const preset = isDefaultExternal(p.field_type, p.field_data) ? DEFAULT_EXTERNAL_ACCOUNTS[p.field_data.subtype as string] : null;
  const label = preset ? preset.name : name;
  checkNameFree(realm, label);
  const batch = shard.batch();
  const id = shard.allocate(batch, 'profileField');
  const field: ProfileFieldRecord = {
    id,
    name: label,
    hint: preset ? preset.hint : p.hint,
    type: p.field_type,
    fieldData: !keepsData(p.field_type) ? '' : JSON.stringify(preset ? { subtype: p.field_data.subtype } : p.field_data),
    order: id,
    displayInProfileSummary: p.display_in_profile_summary,
    required: p.required,
    editableByUser: p.editable_by_user,
  };
  realm.people.profileFields.set(id, field);
  batch.put(shard.store.profileFields, [realm.id, id], field);
  emitFields(realm, batch);
  await batch.commit();
  return id;
}

export interface UpdateFieldParams {
  field_id: number;
  name?: string;
  hint?: string;
  field_data?: FieldData;
  display_in_profile_summary?: boolean;
  required?: boolean;
  editable_by_user?: boolean;
}

function sameJson(a: unknown, b: unknown): boolean {
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return a === b;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/**
 * PATCH /realm/profile_fields/{field_id}: what is given changes. A known external account may only
 * change how it is shown (its label, hint and subtype are the server's). Shrinking a list of
 * options drops the values that named a choice now gone, and tells who can see those users.
 */
export async function doUpdateField(shard: Shard, realm: RealmState, p: UpdateFieldParams): Promise<void> {
  const field = fieldById(realm, p.field_id);
  const name = p.name?.trim();
  if (p.display_in_profile_summary) checkSummaryLimit(realm, field.id);
  const stored: FieldData = field.fieldData === '' ? {} : JSON.parse(field.fieldData);
  if (isDefaultExternal(field.type, stored)) {
    const onlyDisplay = (name === undefined || name === field.name) && (p.hint === undefined || p.hint === field.hint) && (p.field_data === undefined || sameJson(p.field_data, stored));
    if (!onlyDisplay) throw badRequest('Default custom field cannot be updated.');
  }
  checkFieldDefinition({
    name: name ?? field.name,
    hint: p.hint ?? field.hint,
    type: field.type,
    fieldData: p.field_data ?? stored,
    displayInProfileSummary: p.display_in_profile_summary ?? field.displayInProfileSummary,
  });
  if (name !== undefined) checkNameFree(realm, name, field.id);

  const batch = shard.batch();
  const updated: ProfileFieldRecord = { ...field };
  if (name !== undefined) updated.name = name;
  if (p.hint !== undefined) updated.hint = p.hint;
  if (p.required !== undefined) updated.required = p.required;
  if (p.editable_by_user !== undefined) updated.editableByUser = p.editable_by_user;
  if (p.display_in_profile_summary !== undefined) updated.displayInProfileSummary = p.display_in_profile_summary;
  if (keepsData(field.type) && p.field_data !== undefined) {
    updated.fieldData = JSON.stringify(p.field_data);
    if (field.type === FIELD_TYPE.SELECT) dropStaleChoices(shard, realm, batch, field.id, p.field_data);
  }
  realm.people.profileFields.set(field.id, updated);
  batch.put(shard.store.profileFields, [realm.id, field.id], updated);
  emitFields(realm, batch);
  await batch.commit();
}

/** Values of a list of options that name a choice no longer offered are removed. */
function dropStaleChoices(shard: Shard, realm: RealmState, batch: WriteBatch, fieldId: number, choices: FieldData): void {
  const key = String(fieldId);
  for (const user of realm.users.values()) {
    const value = user.profileData?.[key]?.value;
    if (value === undefined || Object.hasOwn(choices, value)) continue;
    applyProfileChanges(shard, realm, batch, user, [{ field: realm.people.profileFields.get(fieldId)!, value: null }], (event, ids) => batch.emit(realm.id, event, ids));
  }
}

/** DELETE /realm/profile_fields/{field_id}: the field and every user's value for it. */
export async function doDeleteField(shard: Shard, realm: RealmState, id: number): Promise<void> {
  fieldById(realm, id);
  const batch = shard.batch();
  realm.people.profileFields.delete(id);
  batch.del(shard.store.profileFields, [realm.id, id]);
  // Clients drop the values of a field that is gone when they apply the event; the reference
  // sends nothing else, and neither does this.
  const key = String(id);
  for (const user of realm.users.values()) {
    if (!user.profileData || !(key in user.profileData)) continue;
    const { [key]: _gone, ...rest } = user.profileData;
    user.profileData = rest;
    saveUser(shard, batch, realm, user);
  }
  emitFields(realm, batch);
  await batch.commit();
}

/** PATCH /realm/profile_fields: `order` must name every field; each takes its position. */
export async function doReorderFields(shard: Shard, realm: RealmState, order: number[]): Promise<void> {
  const position = new Map<number, number>();
  order.forEach((id, i) => position.set(id, i));
  for (const id of realm.people.profileFields.keys()) if (!position.has(id)) throw badRequest('Invalid order mapping.');
  const batch = shard.batch();
  for (const field of [...realm.people.profileFields.values()]) {
    const updated = { ...field, order: position.get(field.id)! };
    realm.people.profileFields.set(field.id, updated);
    batch.put(shard.store.profileFields, [realm.id, field.id], updated);
  }
  emitFields(realm, batch);
  await batch.commit();
}

/** A value to set (stored form, see checkFieldValue) or, when null, to remove. */
export interface ProfileChange {
  field: ProfileFieldRecord;
  value: string | null;
  /** The text types' value rendered as Markdown (rendered while checking: it may fail). */
  rendered?: string;
}

const notEditable = () => badRequest('You are not allowed to change this field. Contact an administrator to update it.');

/** The field of a change the actor asks for: it must exist, and be editable by them. */
function editableField(realm: RealmState, actor: UserRecord, id: number): ProfileFieldRecord {
  const field = fieldById(realm, id);
  if (actor.role > ROLE.administrator && !field.editableByUser) throw notEditable();
  return field;
}

/**
 * Checks a list of {id, value} as the reference's validate_user_custom_profile_data does, each
 * entry in turn. With `emptyRemoves` (PATCH /users/{user_id}), an empty value removes the user's
 * value instead, as the reference's update_user_backend does.
 */
export function checkProfileData(realm: RealmState, actor: UserRecord, entries: { id: number; value: unknown }[], emptyRemoves: boolean): ProfileChange[] {
  const removals: ProfileChange[] = [];
  const sets: { id: number; value: unknown }[] = [];
  for (const entry of entries) {
    const empty = entry.value === null || entry.value === '' || (Array.isArray(entry.value) && entry.value.length === 0);
    if (emptyRemoves && empty) removals.push({ field: editableField(realm, actor, entry.id), value: null });
    else sets.push(entry);
  }
  return [...removals, ...sets.map((entry) => {
    const field = editableField(realm, actor, entry.id);
    const value = checkFieldValue(realm, field, entry.value);
    return isRenderable(field.type) ? { field, value, rendered: renderMessage(value, { realm, sender: null }).html } : { field, value };
  })];
}

/** DELETE /users/me/profile_data: each id must name a field the user may change. */
export function checkProfileRemovals(realm: RealmState, actor: UserRecord, ids: number[]): ProfileChange[] {
  return ids.map((id) => ({ field: editableField(realm, actor, id), value: null }));
}

/**
 * Applies checked changes to a user's record (in place: a request holding it sees them), writing
 * it once. Values that do not change send nothing; each that does, a realm_user update, with the
 * text types' rendering (always, even when empty: the reference leaves an empty rendering out of
 * the event but not out of /register, which a client could then not reconcile).
 */
export function applyProfileChanges(shard: Shard, realm: RealmState, batch: WriteBatch, user: UserRecord, changes: ProfileChange[], emit: (event: ShardEvent, userIds: number[]) => void): void {
  const data = { ...user.profileData };
  let changed = false;
  for (const { field, value, rendered } of changes) {
    const key = String(field.id);
    if (value === null ? !(key in data) : data[key]?.value === value) continue;
    const item: { id: number; value: string | null; rendered_value?: string } = { id: field.id, value };
    if (value === null) delete data[key];
    else if (rendered !== undefined) {
      data[key] = { value, rendered };
      item.rendered_value = rendered;
    } else data[key] = { value };
    changed = true;
    emit({ type: 'realm_user', op: 'update', person: { user_id: user.id, custom_profile_field: item } }, usersWhoCanAccess(shard, realm, user));
  }
  if (!changed) return;
  user.profileData = data;
  saveUser(shard, batch, realm, user);
}

export async function doSetProfileData(shard: Shard, realm: RealmState, user: UserRecord, changes: ProfileChange[]): Promise<void> {
  const batch = shard.batch();
  applyProfileChanges(shard, realm, batch, user, changes, (event, ids) => batch.emit(realm.id, event, ids));
  await batch.commit();
}
