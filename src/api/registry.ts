import type { Operation } from './operation.js';
import { operations as alertWords } from './alert-words/index.js';
import { operations as muting } from './muting/index.js';
import { operations as profileFields } from './profile-fields/index.js';
import { operations as userDefaults } from './user-defaults/index.js';
import { operations as userStatus } from './user-status/index.js';
import { operations as channelFolders } from './channel-folders/index.js';
import { operations as defaultStreams } from './default-streams/index.js';
import { operations as avatars } from './avatars/index.js';
import { operations as bots } from './bots/index.js';
import { operations as devices } from './devices/index.js';
import { operations as drafts } from './drafts/index.js';
import { operations as emoji } from './emoji/index.js';
import { operations as emailGateway } from './email-gateway/index.js';
import { operations as events } from './events/index.js';
import { operations as invites } from './invites/index.js';
import { operations as linkifiers } from './linkifiers/index.js';
import { operations as messages } from './messages/index.js';
import { operations as playgrounds } from './playgrounds/index.js';
import { operations as presence } from './presence/index.js';
import { operations as realm } from './realm/index.js';
import { operations as reminders } from './reminders/index.js';
import { operations as savedSnippets } from './saved-snippets/index.js';
import { operations as calls } from './calls/index.js';
import { operations as passwordReset } from './password-reset/index.js';
import { operations as realmDomains } from './realm-domains/index.js';
import { operations as realmImages } from './realm-images/index.js';
import { operations as exports } from './exports/index.js';
import { operations as navigationViews } from './navigation-views/index.js';
import { welcomeTestOperations } from './invites/welcome-test.js';
import { operations as scheduledMessages } from './scheduled-messages/index.js';
import { operations as server } from './server/index.js';
import { operations as settings } from './settings/index.js';
import { operations as streams } from './streams/index.js';
import { operations as createChannel } from './streams/create-channel.js';
import { operations as submessages } from './submessages/index.js';
import { operations as subscriptions } from './subscriptions/index.js';
import { operations as typing } from './typing/index.js';
import { operations as uploads } from './uploads/index.js';
import { operations as userGroups } from './user_groups/index.js';
import { operations as sessions } from './sessions/index.js';
import { operations as users } from './users/index.js';
import { operations as userTopics } from './user-topics/index.js';
import { operations as webhooks } from './webhooks/index.js';

/** Every operation the shards run, by the name the route table (src/routes.ts) uses. */
export const operations: Record<string, Operation<any>> = {
  ...avatars,
  ...bots,
  ...channelFolders,
  ...defaultStreams,
  ...devices,
  ...drafts,
  ...emoji,
  ...emailGateway,
  ...events,
  ...invites,
  ...passwordReset,
  ...linkifiers,
  ...messages,
  ...playgrounds,
  ...presence,
  ...realm,
  ...reminders,
  ...savedSnippets,
  ...navigationViews,
  ...exports,
  ...calls,
  ...realmDomains,
  ...realmImages,
  ...welcomeTestOperations,
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
