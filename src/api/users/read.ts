import { badRequest, insufficientPermission, unauthorized } from '../../lib/errors.js';
import { accessFilter, canAccessUser } from '../../model/user-access.js';
import { realmSetting } from '../../model/realm-settings.js';
import { maxMessageId } from '../../store/messages.js';
import { me, operation } from '../../api-kit/operation.js';
import { userByIdOrEmail } from './access.js';
import { inaccessibleUserView, ownUserView, userView } from './views.js';

/** The reference's name and our spec's name for the same flag; both are accepted. */
const AVATAR_PARAMS = {
  client_gravatar: { type: 'boolean' },
  client_avatarhost: { type: 'boolean' },
  include_custom_profile_fields: { type: 'boolean' },
};

interface AvatarParams {
  client_gravatar?: boolean;
  client_avatarhost?: boolean;
  include_custom_profile_fields?: boolean;
}

/** client_gravatar defaults to true since feature level 92. */
const clientGravatar = (p: AvatarParams) => p.client_gravatar ?? p.client_avatarhost ?? true;

/** GET /users/me */
const getMe = operation({
  auth: 'user',
  allowIncomingWebhooks: true,
  handler: (ctx) => ({
    ...ownUserView(me(ctx)),
    max_message_id: maxMessageId(ctx.shard, ctx.realm, me(ctx).id),
  }),
});

/**
 * GET /users: every user of the realm, active and deactivated, bots included, in id order.
 * Without credentials it answers only when the realm allows spectators (feature level 387), and
 * then with what the reference shows a spectator: no real emails, time zones or profile data.
 * A restricted guest gets the "Unknown user" placeholder for each user they cannot access, as
 * the reference's get_users_for_api does when no user_list_incomplete is passed.
 */
const list = operation<AvatarParams & { user_ids?: number[] }>({
  auth: 'optional',
  params: {
    properties: { ...AVATAR_PARAMS, user_ids: { type: 'array', items: { type: 'integer' } } },
  },
  handler: ({ shard, realm, user, params }) => {
    const spectator = user === null;
    if (spectator && realmSetting(realm, 'enable_spectator_access') !== true) throw unauthorized();
    // System bots belong to no realm in the reference, so its realm-wide list leaves them out.
    let users = [...realm.users.values()].filter((u) => !u.isSystemBot);
    if (params.user_ids) {
      for (const id of params.user_ids) if (!realm.users.has(id) || realm.users.get(id)!.isSystemBot) throw badRequest(`Invalid user ID: ${id}`);
      const wanted = new Set(params.user_ids);
      users = users.filter((u) => wanted.has(u.id));
    }
    users.sort((a, b) => a.id - b.id);
    const opts = { clientGravatar: clientGravatar(params), includeProfileData: params.include_custom_profile_fields === true, spectator };
    const accessible = user ? accessFilter(shard, realm, user) : () => true;
    return { members: users.map((u) => (accessible(u) ? userView(u, opts) : inaccessibleUserView(realm.url, u.id))) };
  },
});

/**
 * GET /users/{user_id} and GET /users/{email}: deactivated users and bots included. A user the
 * requester cannot access is "Insufficient permission", as the reference's access_user_common
 * answers (unknown ids and addresses stay "No such user").
 */
const get = operation<AvatarParams & { user_id_or_email: string }>({
  auth: 'user',
  params: {
    properties: { ...AVATAR_PARAMS, user_id_or_email: { type: 'string' } },
    required: ['user_id_or_email'],
  },
  handler: (ctx) => {
    const { shard, realm, params } = ctx;
    const target = userByIdOrEmail(shard, realm, params.user_id_or_email, true);
    if (!canAccessUser(shard, realm, me(ctx), target)) throw insufficientPermission();
    return { user: userView(target, { clientGravatar: clientGravatar(params), includeProfileData: params.include_custom_profile_fields === true }) };
  },
});

export const readOperations = {
  'users.me': getMe,
  'users.list': list,
  'users.get': get,
};
