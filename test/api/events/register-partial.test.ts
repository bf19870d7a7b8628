import t from 'tap';
import { subscriptionSection } from '../../../src/api/events/register-channels.js';
import { doUpdatePresence } from '../../../src/api/presence/presence.js';
import { createInitialChannels } from '../../../src/api/streams/actions.js';
import { subscribeToDefaultChannels } from '../../../src/api/subscriptions/actions.js';
import { ROLE, startShard } from '../realm/harness.js';

/**
 * include_subscribers=partial (feature level 412): a big channel comes with partial_subscribers,
 * which must hold every bot and everyone active lately. Built in-process: 250 users over HTTP
 * would only slow the suite down.
 */
t.test('POST /register: include_subscribers=partial', async (t) => {
  const h = await startShard(t);
  await createInitialChannels(h.shard, h.realm, h.owner);
  const make = async (opts: { isBot?: boolean } = {}) => {
    const user = await h.user(ROLE.member, opts);
    await subscribeToDefaultChannels(h.shard, h.realm, user);
    return user;
  };
  const me = await make();
  const bot = await make({ isBot: true });
  const active = await make();
  for (let i = 0; i < 250; i++) await make();
  doUpdatePresence(h.shard, h.realm, active, 'active');
  const opts = { includeSubscribers: 'partial' as const, archived: false, notificationSettingsNull: true };
  const [general] = subscriptionSection(h.shard, h.realm, me, opts).subscriptions as Record<string, any>[];
  t.notOk('subscribers' in general, 'no full list for a channel of 250 or more');
  t.same(general.partial_subscribers, [me.id, bot.id, active.id].sort((a, b) => a - b), 'the user, the bot and the recently active user');
  const [full] = subscriptionSection(h.shard, h.realm, me, { ...opts, includeSubscribers: true }).subscriptions as Record<string, any>[];
  t.equal(full.subscribers.length, 254, 'include_subscribers=true lists all of them');
});
