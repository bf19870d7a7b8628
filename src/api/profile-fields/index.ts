import { me, operation } from '../../api-kit/operation.js';
import { notForBots } from '../users/access.js';
import {
  checkProfileData,
  checkProfileRemovals,
  doCreateField,
  doDeleteField,
  doReorderFields,
  doSetProfileData,
  doUpdateField,
  type CreateFieldParams,
  type UpdateFieldParams,
} from './actions.js';
import { fieldsView } from './views.js';

export { customProfileFieldsSection } from './views.js';

/**
 * Custom profile fields: the realm's fields (GET for everyone, the writes for administrators)
 * and a user's own values (PATCH and DELETE /users/me/profile_data, human users only).
 * Administrators set other users' values through PATCH /users/{user_id} (users/update.ts).
 */
const list = operation({
  auth: 'user',
  handler: (ctx) => ({ custom_fields: fieldsView(ctx.realm) }),
});

const fieldProperties = {
  name: { type: 'string' },
  hint: { type: 'string' },
  field_data: { type: 'object' },
  display_in_profile_summary: { type: 'boolean' },
  required: { type: 'boolean' },
  editable_by_user: { type: 'boolean' },
};

const create = operation<CreateFieldParams>({
  auth: 'user',
  role: 'administrator',
  params: {
    properties: {
      ...fieldProperties,
      name: { type: 'string', default: '' },
      hint: { type: 'string', default: '' },
      field_type: { type: 'integer' },
      field_data: { type: 'object', default: {} },
      display_in_profile_summary: { type: 'boolean', default: false },
      required: { type: 'boolean', default: false },
      editable_by_user: { type: 'boolean', default: true },
    },
    required: ['field_type'],
  },
  handler: async (ctx) => ({ id: await doCreateField(ctx.shard, ctx.realm, ctx.params) }),
});

const update = operation<UpdateFieldParams>({
  auth: 'user',
  role: 'administrator',
  params: { properties: { field_id: { type: 'integer' }, ...fieldProperties }, required: ['field_id'] },
  handler: async (ctx) => {
    await doUpdateField(ctx.shard, ctx.realm, ctx.params);
    return {};
  },
});

const remove = operation<{ field_id: number }>({
  auth: 'user',
  role: 'administrator',
  params: { properties: { field_id: { type: 'integer' } }, required: ['field_id'] },
  handler: async (ctx) => {
    await doDeleteField(ctx.shard, ctx.realm, ctx.params.field_id);
    return {};
  },
});

const reorder = operation<{ order: number[] }>({
  auth: 'user',
  role: 'administrator',
  params: { properties: { order: { type: 'array', items: { type: 'integer' } } }, required: ['order'] },
  handler: async (ctx) => {
    await doReorderFields(ctx.shard, ctx.realm, ctx.params.order);
    return {};
  },
});

/** A value is text, or for a user list the users' ids. */
export const profileDataEntry = {
  type: 'object',
  properties: { id: { type: 'integer' }, value: { anyOf: [{ type: 'array', items: { type: 'integer' } }, { type: 'string' }] } },
  required: ['id', 'value'],
  additionalProperties: false,
};

const setOwn = operation<{ data: { id: number; value: unknown }[] }>({
  auth: 'user',
  params: { properties: { data: { type: 'array', items: profileDataEntry } }, required: ['data'] },
  handler: async (ctx) => {
    const user = me(ctx);
    notForBots(user);
    await doSetProfileData(ctx.shard, ctx.realm, user, checkProfileData(ctx.realm, user, ctx.params.data, false));
    return {};
  },
});

const removeOwn = operation<{ data: number[] }>({
  auth: 'user',
  params: { properties: { data: { type: 'array', items: { type: 'integer' } } }, required: ['data'] },
  handler: async (ctx) => {
    const user = me(ctx);
    notForBots(user);
    await doSetProfileData(ctx.shard, ctx.realm, user, checkProfileRemovals(ctx.realm, user, ctx.params.data));
    return {};
  },
});

export const operations = {
  'profileFields.list': list,
  'profileFields.create': create,
  'profileFields.reorder': reorder,
  'profileFields.update': update,
  'profileFields.remove': remove,
  'profileFields.setOwn': setOwn,
  'profileFields.removeOwn': removeOwn,
};
