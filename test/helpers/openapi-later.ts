import { Ajv, type ValidateFunction } from 'ajv';

/**
 * Shapes newer than the 10.2 description in test/reference, for what this server serves from
 * later feature levels, written out from the reference's API documentation of those levels
 * (zulip.com/api). helpers/openapi.ts checks /register keys and events against these; newer
 * endpoints are in helpers/undocumented.ts.
 */

/** A reminder (feature level 399: GET /reminders, /register's `reminders`, reminders events). */
export const reminder = {
  type: 'object',
  additionalProperties: false,
  required: ['reminder_id', 'type', 'to', 'content', 'rendered_content', 'scheduled_delivery_timestamp', 'failed', 'reminder_target_message_id'],
  properties: {
    reminder_id: { type: 'integer' },
    type: { enum: ['private'] },
    to: { type: 'array', items: { type: 'integer' } },
    content: { type: 'string' },
    rendered_content: { type: 'string' },
    scheduled_delivery_timestamp: { type: 'integer' },
    failed: { type: 'boolean' },
    reminder_target_message_id: { type: 'integer' },
  },
};

/** A navigation view (feature level 390: GET /navigation_views, /register's `navigation_views`). */
export const navigationView = {
  type: 'object',
  additionalProperties: false,
  required: ['fragment', 'is_pinned', 'name'],
  properties: { fragment: { type: 'string' }, is_pinned: { type: 'boolean' }, name: { type: ['string', 'null'] } },
};

/** Top-level /register keys. */
export const LATER_REGISTER_FIELDS: Record<string, object> = {
  reminders: { type: 'array', items: reminder },
  navigation_views: { type: 'array', items: navigationView },
};

/** Events, by type. */
export const LATER_EVENTS: Record<string, object> = {
  navigation_view: {
    oneOf: [
      { type: 'object', additionalProperties: false, required: ['id', 'type', 'op', 'navigation_view'], properties: { id: { type: 'integer' }, type: { enum: ['navigation_view'] }, op: { enum: ['add'] }, navigation_view: navigationView } },
      {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'type', 'op', 'fragment', 'data'],
        properties: {
          id: { type: 'integer' },
          type: { enum: ['navigation_view'] },
          op: { enum: ['update'] },
          fragment: { type: 'string' },
          data: { type: 'object', additionalProperties: false, minProperties: 1, properties: { is_pinned: { type: 'boolean' }, name: { type: ['string', 'null'] } } },
        },
      },
      { type: 'object', additionalProperties: false, required: ['id', 'type', 'op', 'fragment'], properties: { id: { type: 'integer' }, type: { enum: ['navigation_view'] }, op: { enum: ['remove'] }, fragment: { type: 'string' } } },
    ],
  },
  reminders: {
    oneOf: [
      { type: 'object', additionalProperties: false, required: ['id', 'type', 'op', 'reminders'], properties: { id: { type: 'integer' }, type: { enum: ['reminders'] }, op: { enum: ['add'] }, reminders: { type: 'array', items: reminder } } },
      { type: 'object', additionalProperties: false, required: ['id', 'type', 'op', 'reminder_id'], properties: { id: { type: 'integer' }, type: { enum: ['reminders'] }, op: { enum: ['remove'] }, reminder_id: { type: 'integer' } } },
    ],
  },
};

const ajv = new Ajv({ strict: false, allErrors: true });
const compiled = new Map<object, ValidateFunction>();

/** ajv's errors for `value` against one of the schemas above, or null when it matches. */
export function laterErrors(schema: object, value: unknown): string[] | null {
  let fn = compiled.get(schema);
  if (!fn) compiled.set(schema, (fn = ajv.compile(schema)));
  if (fn(value)) return null;
  return fn.errors!.slice(0, 8).map((e) => `${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`);
}
