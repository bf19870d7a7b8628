import { invalidArgument } from '../../lib/errors.js';
import { inviteState } from '../../model/invite.js';
import { ROLES, type Role } from '../../model/types.js';
import { me, operation } from '../../api-kit/operation.js';
import { checkCanAddToGroups } from '../user_groups/actions.js';
import { accessInvite, checkInviteRole, checkInviteStreams, checkWelcomeText, noSuchInvitation } from './checks.js';
import { emitInvitesChanged, putInvite } from './records.js';

/**
 * PATCH /invites/multiuse/{invite_id} (Zulip 11): changes what a reusable link grants (role,
 * channels, groups, default channels, welcome text) for the accounts made with it from now on.
 * Who may revoke the link may edit it; each value is checked as POST /invites/multiuse checks
 * it, so an edit cannot grant what its author could not have granted when creating the link.
 */
interface Params {
  invite_id: number;
  invite_as?: number;
  stream_ids?: number[];
  group_ids?: number[];
  include_realm_default_subscriptions?: boolean;
  welcome_message_custom_text?: string | null;
}

const edit = operation<Params>({
  auth: 'user',
  params: {
    properties: {
      invite_id: { type: 'integer' },
      invite_as: { type: 'integer' },
      stream_ids: { type: 'array', items: { type: 'integer' } },
      group_ids: { type: 'array', items: { type: 'integer' } },
      include_realm_default_subscriptions: { type: 'boolean' },
      welcome_message_custom_text: { type: ['string', 'null'], maxLength: 8000 },
    },
    required: ['invite_id'],
  },
  handler: async (ctx) => {
    const { shard, realm, params: p } = ctx;
    const user = me(ctx);
    const invite = { ...accessInvite(shard, realm, user, p.invite_id, 'multiuse') };
    if (inviteState(invite, Math.floor(Date.now() / 1000)) !== 'valid') throw noSuchInvitation();
    if (p.invite_as !== undefined) {
      if (!ROLES.includes(p.invite_as as Role)) throw invalidArgument('invite_as', 'Invalid invite_as: Value error, Not in the list of possible values');
      checkInviteRole(user, p.invite_as as Role);
      invite.invitedAs = p.invite_as as Role;
    }
    if (p.stream_ids !== undefined) invite.streamIds = checkInviteStreams(realm, user, p.stream_ids).map((s) => s.id);
    if (p.group_ids !== undefined) invite.groupIds = checkCanAddToGroups(realm, user, p.group_ids).map((g) => g.id);
    if (p.include_realm_default_subscriptions !== undefined) invite.includeDefaults = p.include_realm_default_subscriptions;
    if (p.welcome_message_custom_text !== undefined) {
      checkWelcomeText(user, p.welcome_message_custom_text);
      invite.welcomeText = p.welcome_message_custom_text;
    }
    const batch = shard.batch();
    putInvite(shard, batch, invite);
    emitInvitesChanged(batch, realm, [invite.invitedBy]);
    await batch.commit();
    return {};
  },
});

export const editOperations = { 'invites.editMultiuse': edit };
