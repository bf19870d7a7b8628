import { inviteApiId, type InviteRecord } from '../../model/invite.js';
import type { RealmState } from '../../model/realm-state.js';

/** The link of an invitation: the reference's /join/<key>/ for both kinds. */
export function inviteLink(realm: RealmState, invite: InviteRecord): string {
  return `${realm.url}/join/${invite.key}/`;
}

/** An invitation as GET /invites shows it (the reference's Invite object). */
export function inviteView(realm: RealmState, invite: InviteRecord): Record<string, unknown> {
  const common = {
    id: inviteApiId(invite),
    invited_by_user_id: invite.invitedBy,
    invited: invite.invitedAt,
    expiry_date: invite.expiresAt,
    invited_as: invite.invitedAs,
  };
  if (invite.kind === 'multiuse') return { ...common, link_url: inviteLink(realm, invite), is_multiuse: true };
  return { ...common, email: invite.email, is_multiuse: false, notify_referrer_on_join: invite.notifyReferrerOnJoin };
}
