import { operation } from '../../api-kit/operation.js';
import { checkReorderLinkifiers, cleanInput, doAddLinkifier, doRemoveLinkifier, doUpdateLinkifier } from './actions.js';
import { linkifiersView } from './views.js';

export { linkifiersView } from './views.js';

/**
 * Realm linkifiers: GET /realm/linkifiers for every user, the writes for administrators. The
 * reference keeps the old /realm/filters paths for adding, editing and removing one.
 */
const linkifierParams = {
  pattern: { type: 'string' },
  url_template: { type: 'string' },
};

const list = operation({
  auth: 'user',
  handler: (ctx) => ({ linkifiers: linkifiersView(ctx.realm) }),
});

const add = operation<{ pattern: string; url_template: string }>({
  auth: 'user',
  role: 'administrator',
  params: { properties: linkifierParams, required: ['pattern', 'url_template'] },
  handler: async (ctx) => {
    const id = await doAddLinkifier(ctx.shard, ctx.realm, cleanInput(ctx.params.pattern, ctx.params.url_template));
    return { id };
  },
});

const update = operation<{ filter_id: number; pattern: string; url_template: string }>({
  auth: 'user',
  role: 'administrator',
  params: { properties: { filter_id: { type: 'integer' }, ...linkifierParams }, required: ['filter_id', 'pattern', 'url_template'] },
  handler: async (ctx) => {
    await doUpdateLinkifier(ctx.shard, ctx.realm, ctx.params.filter_id, cleanInput(ctx.params.pattern, ctx.params.url_template));
    return {};
  },
});

const remove = operation<{ filter_id: number }>({
  auth: 'user',
  role: 'administrator',
  params: { properties: { filter_id: { type: 'integer' } }, required: ['filter_id'] },
  handler: async (ctx) => {
    await doRemoveLinkifier(ctx.shard, ctx.realm, ctx.params.filter_id);
    return {};
  },
});

const reorder = operation<{ ordered_linkifier_ids: number[] }>({
  auth: 'user',
  role: 'administrator',
  params: { properties: { ordered_linkifier_ids: { type: 'array', items: { type: 'integer' } } }, required: ['ordered_linkifier_ids'] },
  handler: async (ctx) => {
    await checkReorderLinkifiers(ctx.shard, ctx.realm, ctx.params.ordered_linkifier_ids);
    return {};
  },
});

export const operations = {
  'linkifiers.list': list,
  'linkifiers.reorder': reorder,
  'linkifiers.add': add,
  'linkifiers.update': update,
  'linkifiers.remove': remove,
};
