import { isValidEmail, realmRefusals } from '../../model/email-addresses.js';
import { ApiError, badRequest, insufficientPermission } from '../../lib/errors.js';
import { BOT_TYPE, ROLE } from '../../model/types.js';
import { checkBotNameAvailable, checkCanCreateBot } from './bot-checks.js';
import { me, operation } from '../../api-kit/operation.js';
import { canAdminUser, noSuchUser, userById } from './access.js';
import { ownerRequired } from './update.js';
import { activeHumanOwners, checkFullName, doCreateUser, doDeactivateUser, doReactivateUser } from './actions.js';


/**
 * POST /users: an administrator creates an account with a password. The reference also asks for
 * a per-account can_create_users flag; here every administrator holds it. Checks run in the
 * reference's order: name, address form, address taken, password strength.
 */
const create = operation<{ email: string; password: string; full_name: string }>({
  auth: 'user',
  role: 'administrator',
  params: {
    properties: { email: { type: 'string' }, password: { type: 'string' }, full_name: { type: 'string' } },
    required: ['email', 'password', 'full_name'],
  },
  handler: async ({ shard, realm, params }) => {
    const fullName = checkFullName(params.full_name);
    const email = params.email.trim();
    if (!isValidEmail(email)) throw badRequest('Bad name or username');
    // An administrator needs no invitation, but the organization's address rules still hold.
    const refusal = realmRefusals(realm)(email);
    if (refusal === 'domain') throw badRequest(`Email '${email}' not allowed in this organization`);
    if (refusal === 'disposable') throw badRequest('Disposable email addresses are not allowed in this organization');
    if (refusal === 'plus') throw badRequest('Email addresses containing + are not allowed.');
    if (realm.userByEmail(email)) throw badRequest(`Email '${email}' already in use`);
    if (params.password.length < shard.config.passwordMinLength) throw badRequest('The password is too weak.');
    const user = await doCreateUser(shard, realm, { email, fullName, password: params.password });
    return { user_id: user.id };
  },
});

/**
 * DELETE /users/{user_id}: deactivate a human account (bots have their own endpoint in the
 * reference, so a bot here is "No such user"). Only owners deactivate owners, and the last
 * owner stays.
 */
const deactivate = operation<{ user_id: number }>({
  auth: 'user',
  params: { properties: { user_id: { type: 'integer' } }, required: ['user_id'] },
  handler: async (ctx) => {
    const actor = me(ctx);
    const target = userById(ctx.realm, ctx.params.user_id);
    if (target.isBot) throw noSuchUser();
    if (!target.isActive) throw badRequest('User is deactivated');
    if (!canAdminUser(actor, target)) throw insufficientPermission();
    if (target.role === ROLE.owner && actor.role !== ROLE.owner) throw ownerRequired();
    if (target.role === ROLE.owner && activeHumanOwners(ctx.realm).length === 1) {
      throw badRequest('Cannot deactivate the only organization owner');
    }
    await doDeactivateUser(ctx.shard, ctx.realm, target);
    return {};
  },
});

/** The reference's CannotDeactivateLastUserError. */
const cannotDeactivateLast = (isLastOwner: boolean) => {
  const entity = isLastOwner ? 'organization owner' : 'user';
  return new ApiError(`Cannot deactivate the only ${entity}.`, { code: 'CANNOT_DEACTIVATE_LAST_USER', data: { is_last_owner: isLastOwner, entity } });
};

/**
 * DELETE /users/me: any user deactivates their own account (and, as for any deactivation, the
 * bots they own), with the events of DELETE /users/{user_id}. Not the realm's only active user,
 * nor its only owner. The API key stops working at once.
 */
const deactivateOwn = operation({
  auth: 'user',
  handler: async (ctx) => {
    const user = me(ctx);
    if (ctx.realm.activeUserIds().length === 1) throw cannotDeactivateLast(false);
    const owners = activeHumanOwners(ctx.realm);
    if (user.role === ROLE.owner && owners.length === 1 && owners[0].id === user.id) throw cannotDeactivateLast(true);
    await doDeactivateUser(ctx.shard, ctx.realm, user);
    return {};
  },
});

/** POST /users/{user_id}/reactivate: administrators, or a bot's owner for that bot. */
const reactivate = operation<{ user_id: number }>({
  auth: 'user',
  params: { properties: { user_id: { type: 'integer' } }, required: ['user_id'] },
  handler: async (ctx) => {
    const actor = me(ctx);
    const target = userById(ctx.realm, ctx.params.user_id);
    if (!canAdminUser(actor, target)) throw insufficientPermission();
    // Reactivating a bot is creating it again, as far as permissions and names go.
    if (target.isBot && !target.isActive) {
      checkCanCreateBot(ctx.realm, actor, target.botType ?? BOT_TYPE.generic);
      checkBotNameAvailable(ctx.realm, target.fullName, true, target);
    }
    await doReactivateUser(ctx.shard, ctx.realm, target, actor);
    return {};
  },
});

export const manageOperations = {
  'users.create': create,
  'users.deactivate': deactivate,
  'users.deactivateOwn': deactivateOwn,
  'users.reactivate': reactivate,
};
