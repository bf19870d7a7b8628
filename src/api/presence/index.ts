import { badRequest } from '../../lib/errors.js';
import { me, operation } from '../../api-kit/operation.js';
import { userByIdOrEmail } from '../users/access.js';
import { doUpdatePresence, legacyPresence, sharesPresence, OFFLINE_THRESHOLD_SECS, presenceRecord, realmPresences } from './presence.js';

/** Presence endpoints. The state lives in the shard's memory only: see state.ts. */

interface UpdateParams {
  status: string;
  ping_only: boolean;
  new_user_input: boolean;
  slim_presence: boolean;
  last_update_id?: number;
  history_limit_days?: number;
}

/** POST /users/me/presence: report one's own status, and (unless ping_only) read everyone's. */
const update = operation<UpdateParams>({
  auth: 'user',
  params: {
    properties: {
      status: { type: 'string' },
      ping_only: { type: 'boolean', default: false },
      // Accepted for the reference's usage statistics, which this server does not keep.
      new_user_input: { type: 'boolean', default: false },
      slim_presence: { type: 'boolean', default: false },
      last_update_id: { type: 'integer' },
      history_limit_days: { type: 'integer' },
    },
    required: ['status'],
  },
  handler: (ctx) => {
    const user = me(ctx);
    const p = ctx.params;
    if (user.isBot) throw badRequest('This endpoint does not accept bot requests.');
    if (p.status !== 'active' && p.status !== 'idle') throw badRequest(`Invalid status: ${p.status}`);
    if (sharesPresence(user)) doUpdatePresence(ctx.shard, ctx.realm, user, p.status);
    if (p.ping_only) return {};
    // Passing last_update_id is how a client asks for the modern format.
    const slim = p.slim_presence || p.last_update_id !== undefined;
    const { presences, lastUpdateId } = realmPresences(ctx.shard, ctx.realm, { slim, lastUpdateId: p.last_update_id, historyLimitDays: p.history_limit_days });
    return { presences, server_timestamp: Date.now() / 1000, presence_last_update_id: lastUpdateId };
  },
});

/** GET /realm/presence: everyone's presence, in the legacy format keyed by email. */
const realmPresence = operation({
  auth: 'user',
  handler: (ctx) => ({ presences: realmPresences(ctx.shard, ctx.realm, { slim: false }).presences, server_timestamp: Date.now() / 1000 }),
});

/**
 * GET /users/{user_id_or_email}/presence: one user's presence, without the client names. The
 * aggregated status reads "offline" once the user has been silent past the offline threshold.
 */
const userPresence = operation<{ user_id_or_email: string }>({
  auth: 'user',
  params: { properties: { user_id_or_email: { type: 'string' } }, required: ['user_id_or_email'] },
  handler: (ctx) => {
    const key = ctx.params.user_id_or_email;
    const target = userByIdOrEmail(ctx.shard, ctx.realm, key);
    if (!target.isActive) throw badRequest('No such user');
    if (target.isBot) throw badRequest('Presence is not supported for bot users.');
    const record = presenceRecord(ctx.shard, ctx.realm, target.id);
    if (!record) throw badRequest(`No presence data for ${key}`);
    const presence = legacyPresence(target, record);
    const aggregated = presence.aggregated;
    if (Math.floor(Date.now() / 1000) - (aggregated.timestamp as number) > OFFLINE_THRESHOLD_SECS) aggregated.status = 'offline';
    for (const entry of Object.values(presence)) {
      delete entry.client;
      delete entry.pushable;
    }
    return { presence };
  },
});

export const operations = {
  'presence.update': update,
  'presence.realm': realmPresence,
  'presence.user': userPresence,
};
