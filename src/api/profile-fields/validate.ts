/**
 * Custom profile field validation, after the reference's views/custom_profile_fields.py,
 * lib/external_accounts.py, lib/validator.py and models/custom_profile_fields.py: the definition
 * of a field (its label, hint, type and type-specific `field_data`), and a user's value for it.
 * Messages are the reference's, Python's validator names included (`field_data["text"]`).
 */
import { badRequest } from '../../lib/errors.js';
import type { RealmState } from '../../model/realm-state.js';
import type { ProfileFieldRecord } from '../../model/types.js';

export const FIELD_TYPE = { SHORT_TEXT: 1, LONG_TEXT: 2, SELECT: 3, DATE: 4, URL: 5, USER: 6, EXTERNAL_ACCOUNT: 7, PRONOUNS: 8 } as const;
const TYPES: readonly number[] = Object.values(FIELD_TYPE);

export const NAME_MAX_LENGTH = 40;
export const HINT_MAX_LENGTH = 80;
export const MAX_SUMMARY_FIELDS = 2;

/** The external accounts the reference knows by subtype; their label and hint are its own. */
export const DEFAULT_EXTERNAL_ACCOUNTS: Record<string, { text: string; url_pattern: string; name: string; hint: string }> = {
  twitter: { text: 'Twitter', url_pattern: 'https://twitter.com/%(username)s', name: 'Twitter username', hint: '' },
  github: { text: 'GitHub', url_pattern: 'https://github.com/%(username)s', name: 'GitHub username', hint: '' },
};

/** The text types: their values are also shown rendered as Markdown (the reference's is_renderable). */
export const isRenderable = (type: number) => type === FIELD_TYPE.SHORT_TEXT || type === FIELD_TYPE.LONG_TEXT;

export type FieldData = Record<string, unknown>;

const chars = (s: string) => [...s].length;
const isDict = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The reference's check_dict_only for string values: required keys in order, then no others. */
function checkDictOnly(name: string, value: unknown, required: string[], optional: Record<string, (v: unknown) => void> = {}): Record<string, unknown> {
  if (!isDict(value)) throw badRequest(`${name} is not a dict`);
  for (const key of required) {
    if (!(key in value)) throw badRequest(`${key} key is missing from ${name}`);
    const item = value[key];
    if (typeof item !== 'string') throw badRequest(`${name}["${key}"] is not a string`);
    if (item.trim() === '') throw badRequest(`${name}["${key}"] cannot be blank.`);
  }
  for (const [key, check] of Object.entries(optional)) if (key in value) check(value[key]);
  const extra = Object.keys(value).filter((k) => !required.includes(k) && !(k in optional));
  if (extra.length > 0) throw badRequest(`Unexpected arguments: ${extra.join(', ')}`);
  return value;
}

/** A list of options' choices: {key: {text, order}}, keys and texts distinct and not blank. */
function checkSelectData(data: FieldData): void {
  const keys = Object.keys(data);
  if (keys.length < 1) throw badRequest('Field must have at least one choice.');
  const texts = new Set<unknown>();
  for (const key of keys) {
    if (key.trim() === '') throw badRequest("'value' cannot be blank.");
    texts.add(checkDictOnly('field_data', data[key], ['text', 'order']).text);
  }
  if (texts.size !== keys.length) throw badRequest('Field must not have duplicate choices.');
}

function checkUrlPattern(value: unknown): void {
  const name = 'field_data["url_pattern"]';
  if (typeof value !== 'string') throw badRequest(`${name} is not a string`);
  if (value.split('%(username)s').length !== 2) throw badRequest("URL pattern must contain '%(username)s'.");
  if (!isUrl(value.replace('%(username)s', 'username'))) throw badRequest(`${name} is not a URL`);
}

/** An external account: a known subtype, or `custom` with its own URL pattern. */
function checkExternalAccountData(data: FieldData): void {
  checkDictOnly('field_data', data, ['subtype'], { url_pattern: checkUrlPattern });
  const subtype = data.subtype as string;
  if (Object.hasOwn(DEFAULT_EXTERNAL_ACCOUNTS, subtype)) return;
  if (subtype !== 'custom') throw badRequest('Invalid external account type');
  if (!('url_pattern' in data)) throw badRequest('Custom external account must define URL pattern');
}

/** An external account of a known subtype: its label and hint come from the server. */
export function isDefaultExternal(type: number, data: FieldData): boolean {
  return type === FIELD_TYPE.EXTERNAL_ACCOUNT && data.subtype !== 'custom';
}

export interface FieldDefinition {
  name: string;
  hint: string;
  type: number;
  fieldData: FieldData;
  displayInProfileSummary: boolean;
}

/** The reference's validate_custom_profile_field, in its order. */
export function checkFieldDefinition(def: FieldDefinition): void {
  if (def.type === FIELD_TYPE.SELECT) checkSelectData(def.fieldData);
  else if (def.type === FIELD_TYPE.EXTERNAL_ACCOUNT) checkExternalAccountData(def.fieldData);
  if (!isDefaultExternal(def.type, def.fieldData)) {
    if (def.name.trim() === '') throw badRequest('Label cannot be blank.');
    if (chars(def.hint) > HINT_MAX_LENGTH) throw badRequest(`hint is too long (limit: ${HINT_MAX_LENGTH} characters)`);
    if (chars(def.name) > NAME_MAX_LENGTH) throw badRequest(`name is too long (limit: ${NAME_MAX_LENGTH} characters)`);
  }
  if (!TYPES.includes(def.type)) throw badRequest('Invalid field type.');
  if (def.displayInProfileSummary && (def.type === FIELD_TYPE.LONG_TEXT || def.type === FIELD_TYPE.USER)) {
    throw badRequest('Field type not supported for display in profile summary.');
  }
}

/** At most MAX_SUMMARY_FIELDS fields are shown in profile summaries (`except`: the one being edited). */
export function checkSummaryLimit(realm: RealmState, except?: number): void {
  const shown = [...realm.people.profileFields.values()].filter((f) => f.displayInProfileSummary && f.id !== except).length;
  if (shown >= MAX_SUMMARY_FIELDS) throw badRequest(`Only ${MAX_SUMMARY_FIELDS} custom profile fields can be displayed in the profile summary.`);
}

/** Labels are unique in a realm (the reference's unique_together, case-sensitive). */
export function checkNameFree(realm: RealmState, name: string, except?: number): void {
  for (const field of realm.people.profileFields.values()) {
    if (field.name === name && field.id !== except) throw badRequest('A field with that label already exists.');
  }
}

// Django's URLValidator: http(s) and ftp(s) URLs with a host name that has a top-level domain,
// localhost, or an IP address.
const HOST = '[a-z\\u00a1-\\uffff0-9](?:[a-z\\u00a1-\\uffff0-9-]{0,61}[a-z\\u00a1-\\uffff0-9])?';
const DOMAIN = '(?:\\.(?!-)[a-z\\u00a1-\\uffff0-9-]{1,63}(?<!-))*';
const TLD = '\\.(?!-)(?:[a-z\\u00a1-\\uffff-]{2,63}|xn--[a-z0-9]{1,59})(?<!-)\\.?';
const OCTET = '(?:0|25[0-5]|2[0-4][0-9]|1[0-9]?[0-9]?|[1-9][0-9]?)';
const URL_RE = new RegExp(
  `^(?:https?|ftps?)://(?:[^\\s:@/]+(?::[^\\s:@/]*)?@)?(?:${OCTET}(?:\\.${OCTET}){3}|\\[[0-9a-f:.]+\\]|${HOST}${DOMAIN}${TLD}|localhost)(?::[0-9]{1,5})?(?:[/?#][^\\s]*)?$`,
  'i',
);

export function isUrl(text: string): boolean {
  return text.length <= 2048 && URL_RE.test(text);
}

/** `YYYY-MM-DD`, a real calendar day: what Python's date.fromisoformat gives back unchanged. */
function isDate(text: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (y < 1 || mo < 1 || mo > 12 || d < 1) return false;
  const day = new Date(Date.UTC(2000, mo - 1, d));
  day.setUTCFullYear(y);
  return day.getUTCMonth() === mo - 1 && day.getUTCDate() === d;
}

function checkString(name: string, value: unknown, max?: number): string {
  if (typeof value !== 'string') throw badRequest(`${name} is not a string`);
  if (max !== undefined && chars(value) > max) throw badRequest(`${name} is too long (limit: ${max} characters)`);
  return value;
}

/** The users a user-list value names: existing, active, human users of the realm. */
function checkUserIds(realm: RealmState, value: unknown): number[] {
  if (!Array.isArray(value)) throw badRequest('User IDs is not a list');
  value.forEach((id, i) => {
    if (!Number.isInteger(id)) throw badRequest(`User IDs[${i}] is not an integer`);
  });
  const ids = value as number[];
  const seen = new Set<number>();
  for (const id of ids) {
    const user = realm.users.get(id);
    if (!user || user.isSystemBot || seen.has(id)) throw badRequest(`Invalid user ID: ${id}`);
    seen.add(id);
  }
  for (const id of ids) {
    const user = realm.users.get(id)!;
    if (!user.isActive) throw badRequest(`User with ID ${id} is deactivated`);
    if (user.isBot) throw badRequest(`User with ID ${id} is a bot`);
  }
  return ids;
}

/**
 * A user's value for a field, checked as the reference's validate_user_custom_profile_field does
 * (its messages name the field by its label), and returned as stored: text, or for a user list
 * the ids as JSON text.
 */
export function checkFieldValue(realm: RealmState, field: ProfileFieldRecord, value: unknown): string {
  const name = field.name;
  switch (field.type) {
    case FIELD_TYPE.LONG_TEXT:
      return checkString(name, value, 500);
    case FIELD_TYPE.DATE:
      if (!isDate(checkString(name, value))) throw badRequest(`${name} is not a date`);
      return value as string;
    case FIELD_TYPE.URL:
      if (!isUrl(checkString(name, value))) throw badRequest(`${name} is not a URL`);
      return value as string;
    case FIELD_TYPE.SELECT: {
      const choice = checkString(name, value);
      if (!Object.hasOwn(JSON.parse(field.fieldData || '{}'), choice)) throw badRequest(`'${choice}' is not a valid choice for '${name}'.`);
      return choice;
    }
    case FIELD_TYPE.USER:
      return JSON.stringify(checkUserIds(realm, value));
    default:
      // Short text, external account and pronouns.
      return checkString(name, value, 50);
  }
}
