import { defineLazyJobKind } from '../shard/jobs.js';
import type { Operation } from '../api-kit/operation.js';
// Outgoing webhooks hook into every send (messages/send.ts sendHooks): loaded with the server,
// while the bots' own endpoints load with their first request.
import '../api/bots/outgoing.js';
import { operations as alertWords } from '../api/alert-words/index.js';
import { operations as muting } from '../api/muting/index.js';
import { operations as profileFields } from '../api/profile-fields/index.js';
import { operations as userDefaults } from '../api/user-defaults/index.js';
import { operations as userStatus } from '../api/user-status/index.js';
import { operations as channelFolders } from '../api/channel-folders/index.js';
import { operations as defaultStreams } from '../api/default-streams/index.js';
import { operations as avatars } from '../api/avatars/index.js';
import { operations as devices } from '../api/devices/index.js';
import { operations as drafts } from '../api/drafts/index.js';
import { operations as emoji } from '../api/emoji/index.js';
import { operations as events } from '../api/events/index.js';
import { operations as linkifiers } from '../api/linkifiers/index.js';
import { operations as messages } from '../api/messages/index.js';
import { operations as playgrounds } from '../api/playgrounds/index.js';
import { operations as presence } from '../api/presence/index.js';
import { operations as realm } from '../api/realm/index.js';
import { operations as reminders } from '../api/reminders/index.js';
import { operations as savedSnippets } from '../api/saved-snippets/index.js';
import { operations as realmDomains } from '../api/realm-domains/index.js';
import { operations as navigationViews } from '../api/navigation-views/index.js';
import { operations as notify } from '../api/notify/index.js';
import { operations as scheduledMessages } from '../api/scheduled-messages/index.js';
import { operations as server } from '../api/server/index.js';
import { operations as settings } from '../api/settings/index.js';
import { operations as streams } from '../api/streams/index.js';
import { operations as createChannel } from '../api/streams/create-channel.js';
import { operations as submessages } from '../api/submessages/index.js';
import { operations as subscriptions } from '../api/subscriptions/index.js';
import { operations as typing } from '../api/typing/index.js';
import { operations as uploads } from '../api/uploads/index.js';
import { operations as userGroups } from '../api/user_groups/index.js';
import { operations as sessions } from '../api/sessions/index.js';
import { operations as users } from '../api/users/index.js';
import { operations as userTopics } from '../api/user-topics/index.js';
import { operations as webhooks } from '../api/webhooks/index.js';

/** Every operation the shards run, by the name the route table (src/routes.ts) uses. */
export const operations: Record<string, Operation<any>> = {
  ...avatars,
  ...channelFolders,
  ...defaultStreams,
  ...devices,
  ...drafts,
  ...emoji,
  ...events,
  ...linkifiers,
  ...messages,
  ...playgrounds,
  ...presence,
  ...realm,
  ...reminders,
  ...savedSnippets,
  ...navigationViews,
  ...notify,
  ...realmDomains,
  ...scheduledMessages,
  ...server,
  ...sessions,
  ...settings,
  ...streams,
  ...createChannel,
  ...submessages,
  ...subscriptions,
  ...typing,
  ...uploads,
  ...users,
  ...alertWords,
  ...muting,
  ...profileFields,
  ...userDefaults,
  ...userStatus,
  ...userGroups,
  ...userTopics,
  ...webhooks,
};

type Operations = Record<string, Operation<any>>;

/**
 * Rarely used endpoints, loaded with their first request (dispatch.ts): each shard thread would
 * otherwise hold their code from the start, about 2 MB of heap that an idle server never uses
 * (bench/RESULTS.md, P4). `ops` names what each module serves, without loading it
 * (test/routes.test.ts checks them against the modules); `jobKinds`, the durable job kinds that
 * importing it defines, so that a job of such a kind still runs after a restart.
 */
export const lazyModules: { ops: string[]; jobKinds?: string[]; load: () => Promise<Operations> }[] = [
  { ops: ['bots.create', 'bots.list', 'bots.update', 'bots.deactivate', 'bots.regenerateApiKey', 'users.regenerateApiKey', 'botStorage.get', 'botStorage.put', 'botStorage.remove'], load: async () => (await import('../api/bots/index.js')).operations },
  { ops: ['calls.bigBlueButtonCreate', 'calls.bigBlueButtonJoin'], load: async () => (await import('../api/calls/index.js')).operations },
  { ops: ['emailChange.confirmForm', 'emailChange.confirm'], jobKinds: ['emailChange.notice'], load: async () => (await import('../api/email-change/index.js')).operations },
  { ops: ['streams.emailAddress'], load: async () => (await import('../api/email-gateway/index.js')).operations },
  { ops: ['exports.list', 'exports.create', 'exports.remove', 'exports.consents', 'exports.file'], jobKinds: ['realmExport'], load: async () => (await import('../api/exports/index.js')).operations },
  {
    ops: ['invites.list', 'invites.create', 'invites.createMultiuse', 'invites.revoke', 'invites.revokeMultiuse', 'invites.resend', 'invites.editMultiuse', 'invites.joinPage', 'invites.join'],
    load: async () => (await import('../api/invites/index.js')).operations,
  },
  { ops: ['realm.testWelcomeBotCustomMessage'], load: async () => (await import('../api/invites/welcome-test.js')).welcomeTestOperations },
  { ops: ['passwordReset.form', 'passwordReset.request', 'passwordReset.chooseForm', 'passwordReset.choose'], load: async () => (await import('../api/password-reset/index.js')).operations },
  { ops: ['realmImages.setIcon', 'realmImages.removeIcon', 'realmImages.setLogo', 'realmImages.removeLogo', 'realmImages.file'], load: async () => (await import('../api/realm-images/index.js')).operations },
];

const lazyByOp = new Map(lazyModules.flatMap((m) => m.ops.map((op) => [op, m] as const)));
for (const m of lazyModules) for (const kind of m.jobKinds ?? []) defineLazyJobKind(kind, m.load);

/** An operation of a lazily loaded module: loads it (once) and adds its operations to `operations`. */
export async function loadOperation(name: string): Promise<Operation<any> | undefined> {
  const lazy = lazyByOp.get(name);
  if (!lazy) return undefined;
  Object.assign(operations, await lazy.load());
  return operations[name];
}

/** Every operation, the lazily loaded ones too (tests that walk them all). */
export async function allOperations(): Promise<Operations> {
  for (const m of lazyModules) Object.assign(operations, await m.load());
  return operations;
}
