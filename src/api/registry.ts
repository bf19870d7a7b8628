import type { Operation } from './operation.js';
import { operations as channelFolders } from './channel-folders/index.js';
import { operations as defaultStreams } from './default-streams/index.js';
import { operations as bots } from './bots/index.js';
import { operations as devices } from './devices/index.js';
import { operations as emailGateway } from './email-gateway/index.js';
import { operations as events } from './events/index.js';
import { operations as invites } from './invites/index.js';
import { operations as linkifiers } from './linkifiers/index.js';
import { operations as messages } from './messages/index.js';
import { operations as playgrounds } from './playgrounds/index.js';
import { operations as presence } from './presence/index.js';
import { operations as realm } from './realm/index.js';
import { operations as server } from './server/index.js';
import { operations as settings } from './settings/index.js';
import { operations as streams } from './streams/index.js';
import { operations as submessages } from './submessages/index.js';
import { operations as subscriptions } from './subscriptions/index.js';
import { operations as typing } from './typing/index.js';
import { operations as uploads } from './uploads/index.js';
import { operations as users } from './users/index.js';
import { operations as userTopics } from './user-topics/index.js';
import { operations as webhooks } from './webhooks/index.js';

/** Every operation the shards run, by the name the route table (src/routes.ts) uses. */
export const operations: Record<string, Operation<any>> = {
  ...bots,
  ...channelFolders,
  ...defaultStreams,
  ...devices,
  ...emailGateway,
  ...events,
  ...invites,
  ...linkifiers,
  ...messages,
  ...playgrounds,
  ...presence,
  ...realm,
  ...server,
  ...settings,
  ...streams,
  ...submessages,
  ...subscriptions,
  ...typing,
  ...uploads,
  ...users,
  ...userTopics,
  ...webhooks,
};
