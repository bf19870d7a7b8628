import { startHooks } from '../../shard/jobs.js';
import { watchActivity } from './activity.js';
import { observeRemovals } from './push/removals.js';
import { watchRegistration } from './push/watch.js';
import { operations as unsubscribe } from './unsubscribe.js';
// Registered as they load: the hooks in send, edit and move (triggers.ts), on event queues'
// end (gc.ts), on login (login.ts), the job kinds (email-batch.ts, mail.ts, digest.ts, push/*).
import './triggers.js';
import './login.js';
import './gc.js';
import './email-batch.js';
import './mail.js';
import './digest.js';
import './push/notify.js';
import './push/devices.js';

/**
 * Notifications for people who are away (docs/ARCHITECTURE.md, "Notifications"): missed-message
 * emails, digests, new-login emails, unsubscribe links, and mobile push through the push
 * notification service. The watchers start with the shard's job runner, once message ids are
 * safe to use: removals of mobile notifications as messages are read or deleted, the push
 * registration file, and the copy of presence that digests read.
 */
startHooks.push((_jobs, shard) => {
  shard.events.observers.push((events, batch) => observeRemovals(shard, events, batch));
  watchRegistration(shard);
  watchActivity(shard);
});

export const operations = {
  ...unsubscribe,
};
