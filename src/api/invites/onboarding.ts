import type { RealmState } from '../../model/realm-state.js';
import { realmSetting } from '../../model/realm-settings.js';
import { ROLE, type UserRecord } from '../../model/types.js';
import type { Shard } from '../../shard/shard.js';
import { doUpdateFlags } from '../messages/flags-actions.js';
import { notificationBot, silentMention } from '../messages/notices.js';
import { doSendMessage } from '../messages/send.js';
import { systemBot } from '../users/actions.js';

/**
 * What a new account is told, as the reference's process_new_human_user and onboarding.py do it:
 * the inviter hears that the invitation was accepted, the signups channel that someone joined,
 * and the new user gets Welcome Bot's greeting (starred) and the organization's custom welcome
 * text, if there is one.
 */

export const WELCOME_BOT_EMAIL = 'welcome-bot@zulip.com';
export const WELCOME_BOT_NAME = 'Welcome Bot';

/**
 * The realm's Welcome Bot, a system bot like the Notification Bot (messages/notices.ts): made
 * with the realm, or silently on first use in a realm made before it existed.
 */
export function welcomeBot(shard: Shard, realm: RealmState): Promise<UserRecord> {
  return systemBot(shard, realm, WELCOME_BOT_EMAIL, WELCOME_BOT_NAME);
}

/** The reference's NAVIGATION_TOUR_VIDEO_URL. */
const TOUR_VIDEO_URL = 'https://static.zulipchat.com/static/navigation-tour-video/zulip-10.mp4';
const HELP = 'https://zulip.com/help';

/** Education organizations (org_type 30 and 35) get the class-room guides. */
const EDUCATION_ORG_TYPES = [30, 35];

/**
 * Welcome Bot's greeting, the reference's initial direct message. Its help links point at the
 * reference's help center, since this server has none of its own.
 */
export function initialWelcomeText(realm: RealmState, user: UserRecord): string {
  const education = EDUCATION_ORG_TYPES.includes(realmSetting(realm, 'org_type') as number);
  const gettingStarted = education
    ? `To learn more, check out our [using Zulip for a class guide](${HELP}/using-zulip-for-a-class)!`
    : `To learn more, check out our [getting started guide](${HELP}/getting-started-with-zulip)!`;
  let setup = '';
  if (user.role <= ROLE.administrator) {
    setup = education
      ? ` We also have a guide for [setting up Zulip for a class](${HELP}/setting-up-zulip-for-a-class).`
      : ` We also have a guide for [moving your organization to Zulip](${HELP}/moving-to-zulip).`;
  }
  return [
    'Hello, and welcome to Zulip!👋',
    `${gettingStarted}${setup}`,
    `You can always come back to the [Welcome to Zulip video](${TOUR_VIDEO_URL}) for a quick app overview.`,
  ].join('\n\n');
}

/**
 * The custom Welcome Bot text a new user gets: the invitation's own, else the organization's
 * (welcome_message_custom_text, read when the account is made, not when it was invited); the
 * empty string means none.
 */
export function customWelcomeText(realm: RealmState, invitationText: string | null): string {
  if (invitationText !== null) return invitationText;
  const realmText = realm.realm.settings.welcome_message_custom_text;
  return typeof realmText === 'string' ? realmText : '';
}

/**
 * A direct message from a system bot; its id. The Welcome Bot's are `inApp`: meant to be read in
 * the app, they notify nobody by email or push (the reference's disable_external_notifications).
 */
export async function direct(shard: Shard, realm: RealmState, sender: UserRecord, to: UserRecord, content: string, inApp = false) {
  return doSendMessage(shard, realm, { sender, content, client: 'Internal', readBySender: true, recipients: [to], disableExternalNotifications: inApp });
}

export interface Arrival {
  user: UserRecord;
  /** Who invited them, and whether they asked to hear of it. */
  inviter: UserRecord | undefined;
  notifyInviter: boolean;
  welcomeText: string | null;
}

/** The messages that follow a new account, in the reference's order. */
export async function announceArrival(shard: Shard, realm: RealmState, a: Arrival): Promise<void> {
  if (a.inviter?.isActive && a.notifyInviter) {
    await direct(shard, realm, await notificationBot(shard, realm), a.inviter, `${silentMention(a.user)} accepted your invitation to join Zulip!`);
  }
  const signups = realm.streams.get(realmSetting(realm, 'signup_announcements_stream_id') as number);
  if (signups && !signups.isArchived) {
    const bot = await notificationBot(shard, realm);
    await doSendMessage(shard, realm, { sender: bot, content: `${silentMention(a.user)} joined this organization.`, client: 'Internal', readBySender: true, stream: signups, topic: 'signups' });
  }
  const bot = await welcomeBot(shard, realm);
  const greeting = await direct(shard, realm, bot, a.user, initialWelcomeText(realm, a.user), true);
  // The reference stars the greeting, so that it stays easy to find.
  await doUpdateFlags(shard, realm, a.user, [greeting], 'starred', true);
  const custom = customWelcomeText(realm, a.welcomeText);
  if (custom !== '') await direct(shard, realm, bot, a.user, custom, true);
}
