import { me, operation } from '../../api-kit/operation.js';
import { accessUserById, notForBots } from '../users/access.js';
import { checkStatusUpdate, doUpdateStatus, type StatusParams } from './actions.js';
import { statusView } from './views.js';

export { userStatusSection } from './views.js';

/**
 * User status: POST /users/me/status (human users, as the reference's human_users_only),
 * POST /users/{user_id}/status (whoever can administer the user: administrators; never bots, and
 * no `away`, which is the user's own setting), GET /users/{user_id}/status (anyone who can
 * access the user; {} when they never set one).
 */
const emojiParams = {
  status_text: { type: 'string' },
  emoji_name: { type: 'string' },
  emoji_code: { type: 'string' },
  reaction_type: { type: 'string' },
};

const updateOwn = operation<StatusParams>({
  auth: 'user',
  params: { properties: { away: { type: 'boolean' }, ...emojiParams } },
  handler: async (ctx) => {
    const user = me(ctx);
    notForBots(user);
    await doUpdateStatus(ctx.shard, ctx.realm, user, checkStatusUpdate(ctx.realm, ctx.params));
    return {};
  },
});

const updateOther = operation<StatusParams & { user_id: number }>({
  auth: 'user',
  params: { properties: { user_id: { type: 'integer' }, ...emojiParams }, required: ['user_id'] },
  handler: async (ctx) => {
    const target = accessUserById(ctx.shard, ctx.realm, me(ctx), ctx.params.user_id, { forAdmin: true });
    const { user_id: _target, ...params } = ctx.params;
    await doUpdateStatus(ctx.shard, ctx.realm, target, checkStatusUpdate(ctx.realm, params));
    return {};
  },
});

const get = operation<{ user_id: number }>({
  auth: 'user',
  params: { properties: { user_id: { type: 'integer' } }, required: ['user_id'] },
  handler: (ctx) => {
    const target = accessUserById(ctx.shard, ctx.realm, me(ctx), ctx.params.user_id, { forAdmin: false });
    const status = ctx.realm.people.statuses.get(target.id);
    return { status: status ? statusView(target, status) : {} };
  },
});

export const operations = {
  'userStatus.updateOwn': updateOwn,
  'userStatus.update': updateOther,
  'userStatus.get': get,
};
