import { badRequest } from '../../lib/errors.js';
import { me, operation } from '../../api-kit/operation.js';
import { checkFragment, checkName, doAddView, doRemoveView, doUpdateView, listViews, navigationView, ownView } from './actions.js';

/** GET, POST /navigation_views; PATCH, DELETE /navigation_views/{fragment} (a fragment may hold slashes). */

const list = operation({
  auth: 'user',
  handler: (ctx) => ({ navigation_views: listViews(ctx.shard, ctx.realm, me(ctx).id).map(navigationView) }),
});

const add = operation<{ fragment: string; is_pinned: boolean; name?: string }>({
  auth: 'user',
  params: { properties: { fragment: { type: 'string' }, is_pinned: { type: 'boolean' }, name: { type: 'string' } }, required: ['fragment', 'is_pinned'] },
  handler: async (ctx) => {
    const fragment = checkFragment(ctx.params.fragment);
    const name = checkName(fragment, ctx.params.name);
    await doAddView(ctx.shard, ctx.realm, me(ctx), fragment, ctx.params.is_pinned, name);
    return {};
  },
});

const update = operation<{ fragment: string; is_pinned?: boolean; name?: string }>({
  auth: 'user',
  params: { properties: { fragment: { type: 'string' }, is_pinned: { type: 'boolean' }, name: { type: 'string' } }, required: ['fragment'] },
  handler: async (ctx) => {
    const { fragment, is_pinned: isPinned, name } = ctx.params;
    const user = me(ctx);
    const view = ownView(ctx.shard, ctx.realm, user, fragment);
    if (isPinned === undefined && name === undefined) throw badRequest('At least one of the following arguments must be present: is_pinned, name');
    const change: { isPinned?: boolean; name?: string | null } = {};
    if (isPinned !== undefined) change.isPinned = isPinned;
    if (name !== undefined) change.name = checkName(view.fragment, name);
    await doUpdateView(ctx.shard, ctx.realm, user, view, change);
    return {};
  },
});

const remove = operation<{ fragment: string }>({
  auth: 'user',
  params: { properties: { fragment: { type: 'string' } }, required: ['fragment'] },
  handler: async (ctx) => {
    const user = me(ctx);
    await doRemoveView(ctx.shard, ctx.realm, user, ownView(ctx.shard, ctx.realm, user, ctx.params.fragment));
    return {};
  },
});

export const operations = {
  'navigationViews.list': list,
  'navigationViews.add': add,
  'navigationViews.update': update,
  'navigationViews.remove': remove,
};
