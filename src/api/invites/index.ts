import { badRequest, invalidArgument } from '../../lib/errors.js';
import { inviteState } from '../../model/invite.js';
import { ROLE, ROLES, type Role } from '../../model/types.js';
import { me, operation, type OpContext } from '../../api-kit/operation.js';
import { isAdmin } from '../streams/access.js';
import { doCreateMultiuseInvite, doInviteByEmail, doResendInvite, doRevokeInvite, type InviteSpec } from './actions.js';
import { checkCanAddToGroups } from '../user_groups/actions.js';
import { accessInvite, checkCanInvite, checkInviteRole, checkInviteStreams, checkMemberOrAdmin, checkWelcomeText, parseExpiry } from './checks.js';
import { parseInviteeEmails } from '../../model/email-addresses.js';
import { editOperations } from './edit.js';
import { joinOperations } from './join-ops.js';
import { realmInvites } from './records.js';
import { inviteView } from './views.js';

/**
 * Invitations: email invitations and reusable links (GET, POST, DELETE /invites...), and the
 * sign-up page their links open (join-ops.ts).
 */

/** The reference's Realm.MAX_REALM_WELCOME_MESSAGE_CUSTOM_TEXT_LENGTH. */
export const MAX_WELCOME_TEXT_LENGTH = 8000;

const inviteParams = {
  // JSON: an integer, or null for never; parsed by parseExpiry.
  invite_expires_in_minutes: {},
  invite_as: { type: 'integer' },
  stream_ids: { type: 'array', items: { type: 'integer' } },
  group_ids: { type: 'array', items: { type: 'integer' } },
  include_realm_default_subscriptions: { type: 'boolean' },
  welcome_message_custom_text: { type: ['string', 'null'], maxLength: MAX_WELCOME_TEXT_LENGTH },
};

interface InviteParams {
  invite_expires_in_minutes?: unknown;
  invite_as?: number;
  stream_ids?: number[];
  group_ids?: number[];
  include_realm_default_subscriptions?: boolean;
  welcome_message_custom_text?: string | null;
}

/**
 * The parameters both kinds share, checked in the reference's order: no guests or bots, valid
 * values, permission to invite at all, the role, (`beforeTargets`: the addresses), the channels,
 * the groups, the welcome text. Returns what the invitation will grant.
 */
function checkInvite(ctx: OpContext<InviteParams & { notify_referrer_on_join?: boolean }>, kind: 'email' | 'multiuse', beforeTargets = () => {}): InviteSpec {
  const { realm, params: p } = ctx;
  const user = me(ctx);
  checkMemberOrAdmin(user);
  const invitedAs = (p.invite_as ?? ROLE.member) as Role;
  if (!ROLES.includes(invitedAs)) throw invalidArgument('invite_as', 'Invalid invite_as: Value error, Not in the list of possible values');
  const expiresInMinutes = parseExpiry(p.invite_expires_in_minutes, ctx.shard.config.invitationValidityMinutes);
  checkCanInvite(realm, user, kind);
  checkInviteRole(user, invitedAs);
  beforeTargets();
  const streams = checkInviteStreams(realm, user, p.stream_ids ?? []);
  const groups = checkCanAddToGroups(realm, user, p.group_ids ?? []);
  const welcomeText = p.welcome_message_custom_text ?? null;
  checkWelcomeText(user, welcomeText);
  return { invitedAs, expiresInMinutes, streams, groups, includeDefaults: p.include_realm_default_subscriptions ?? false, notifyReferrerOnJoin: p.notify_referrer_on_join ?? true, welcomeText };
}

const createMultiuse = operation<InviteParams>({
  auth: 'user',
  params: { properties: inviteParams },
  handler: async (ctx) => {
    const spec = checkInvite(ctx, 'multiuse');
    return { invite_link: await doCreateMultiuseInvite(ctx.shard, ctx.realm, me(ctx), spec) };
  },
});

const createEmail = operation<InviteParams & { invitee_emails: string; notify_referrer_on_join?: boolean }>({
  auth: 'user',
  params: {
    properties: { ...inviteParams, invitee_emails: { type: 'string' }, notify_referrer_on_join: { type: 'boolean' } },
    required: ['invitee_emails', 'stream_ids'],
  },
  handler: async (ctx) => {
    const emails = parseInviteeEmails(ctx.params.invitee_emails);
    const spec = checkInvite(ctx, 'email', () => {
      if (emails.length === 0) throw badRequest('You must specify at least one email address.');
    });
    await doInviteByEmail(ctx.shard, ctx.realm, me(ctx), emails, spec);
    return {};
  },
});

/**
 * GET /invites: the unexpired invitations the user may manage, email invitations first:
 * administrators see everyone's, others their own.
 */
const list = operation({
  auth: 'user',
  handler: (ctx) => {
    const user = me(ctx);
    checkMemberOrAdmin(user);
    const now = Math.floor(Date.now() / 1000);
    const mine = realmInvites(ctx.shard, ctx.realm).filter((i) => inviteState(i, now) === 'valid' && (isAdmin(user) || i.invitedBy === user.id));
    const ordered = [...mine.filter((i) => i.kind === 'email'), ...mine.filter((i) => i.kind === 'multiuse')];
    return { invites: ordered.map((i) => inviteView(ctx.realm, i)) };
  },
});

const idParams = { properties: { invite_id: { type: 'integer' } }, required: ['invite_id'] };

const revokeEmail = operation<{ invite_id: number }>({
  auth: 'user',
  params: idParams,
  handler: async (ctx) => {
    await doRevokeInvite(ctx.shard, ctx.realm, accessInvite(ctx.shard, ctx.realm, me(ctx), ctx.params.invite_id, 'email'));
    return {};
  },
});

const revokeMultiuse = operation<{ invite_id: number }>({
  auth: 'user',
  params: idParams,
  handler: async (ctx) => {
    await doRevokeInvite(ctx.shard, ctx.realm, accessInvite(ctx.shard, ctx.realm, me(ctx), ctx.params.invite_id, 'multiuse'));
    return {};
  },
});

const resend = operation<{ invite_id: number }>({
  auth: 'user',
  params: idParams,
  handler: async (ctx) => {
    await doResendInvite(ctx.shard, ctx.realm, accessInvite(ctx.shard, ctx.realm, me(ctx), ctx.params.invite_id, 'email'));
    return {};
  },
});

export const operations = {
  'invites.list': list,
  'invites.create': createEmail,
  'invites.createMultiuse': createMultiuse,
  'invites.revoke': revokeEmail,
  'invites.revokeMultiuse': revokeMultiuse,
  'invites.resend': resend,
  ...editOperations,
  ...joinOperations,
};
