import type { RealmState } from '../../model/realm-state.js';
import type { ProfileFieldRecord } from '../../model/types.js';

/** custom_profile_field_types: every type the reference offers, in its order (by display name). */
export const CUSTOM_PROFILE_FIELD_TYPES = {
  DATE: { id: 4, name: 'Date' },
  EXTERNAL_ACCOUNT: { id: 7, name: 'External account' },
  URL: { id: 5, name: 'Link' },
  SELECT: { id: 3, name: 'List of options' },
  PRONOUNS: { id: 8, name: 'Pronouns' },
  LONG_TEXT: { id: 2, name: 'Text (long)' },
  SHORT_TEXT: { id: 1, name: 'Text (short)' },
  USER: { id: 6, name: 'Users' },
};

/** A field as the reference's CustomProfileField.as_dict gives it (display_in_profile_summary only when set). */
export function fieldView(field: ProfileFieldRecord): Record<string, unknown> {
  const view: Record<string, unknown> = {
    id: field.id,
    name: field.name,
    type: field.type,
    hint: field.hint,
    field_data: field.fieldData,
    order: field.order,
    required: field.required,
    editable_by_user: field.editableByUser,
  };
  if (field.displayInProfileSummary) view.display_in_profile_summary = true;
  return view;
}

/** The realm's fields in display order: GET /realm/profile_fields, /register and the event. */
export function fieldsView(realm: RealmState): Record<string, unknown>[] {
  return realm.people.orderedFields().map(fieldView);
}

/** `custom_profile_fields` and `custom_profile_field_types` of /register. */
export function customProfileFieldsSection(realm: RealmState): Record<string, unknown> {
  return { custom_profile_fields: fieldsView(realm), custom_profile_field_types: CUSTOM_PROFILE_FIELD_TYPES };
}
