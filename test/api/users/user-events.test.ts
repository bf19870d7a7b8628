import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { doCreateRealm } from '../../../src/api/realm/actions.js';
import { doCreateUser, doDeactivateUser, doReactivateUser } from '../../../src/api/users/actions.js';
import { loadConfig, resolveConfig } from '../../../src/lib/config.js';
import { BOT_TYPE } from '../../../src/model/types.js';
import type { ShardEvent } from '../../../src/shard/events.js';
import { Shard } from '../../../src/shard/shard.js';
import { checkEvent } from '../../helpers/openapi.js';

// The event queues are not served over HTTP yet, so these run the do-actions on an in-process
// shard and watch its event bus, which is what the queues will subscribe to.
t.test('realm_user events of user creation, deactivation and reactivation', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'stoa-events-'));
  const config = resolveConfig(loadConfig({}, { dataDir, shards: 1, logLevel: 'silent' }), 9991);
  const shard = Shard.open(0, config);
  t.teardown(async () => {
    await shard.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const { owner } = await doCreateRealm(shard, { id: 1, subdomain: '', name: 'Events', ownerEmail: 'owner@example.com', ownerFullName: 'Owner', ownerPassword: 'owner-password' });
  const realm = shard.realm(1)!;
  const seen: { event: ShardEvent; to: number[] }[] = [];
  shard.events.subscribe((_realmId, event, userIds) => seen.push({ event, to: [...userIds].sort((a, b) => a - b) }));

  const ann = await doCreateUser(shard, realm, { email: 'ann@example.com', fullName: 'Ann' });
  t.test('creating a user sends realm_user add with the full person to active users', async (t) => {
    const [add] = seen.splice(0);
    t.equal(add.event.type, 'realm_user', 'type realm_user');
    t.equal(add.event.op, 'add', 'op add');
    const person = add.event.person as Record<string, unknown>;
    t.same([person.user_id, person.full_name, person.email, person.role, person.is_active], [ann.id, 'Ann', 'ann@example.com', 400, true], 'the person fields');
    t.same(person.profile_data, {}, 'profile_data for a human');
    t.same(add.to, [owner.id, ann.id], 'sent to every active user, the new one included');
    t.doesNotThrow(() => checkEvent(add.event), 'the event matches the reference schema');
  });

  const bot = await doCreateUser(shard, realm, { email: 'ann-bot@example.com', fullName: 'Ann Bot', isBot: true, botType: BOT_TYPE.generic, botOwnerId: ann.id });
  seen.splice(0);

  t.test('deactivating a user sends realm_user update is_active false, and deactivates their bots', async (t) => {
    await doDeactivateUser(shard, realm, ann);
    t.equal(realm.users.get(ann.id)!.isActive, false, 'the user is deactivated');
    t.equal(realm.users.get(bot.id)!.isActive, false, 'their bot is deactivated with them');
    t.same(seen.map((s) => s.event), [
      { type: 'realm_user', op: 'update', person: { user_id: ann.id, is_active: false } },
      { type: 'realm_user', op: 'update', person: { user_id: bot.id, is_active: false } },
      // Those who administer the bot also get realm_bot update (the reference since level 222).
      { type: 'realm_bot', op: 'update', bot: { user_id: bot.id, is_active: false } },
    ], 'one update per deactivated account, and realm_bot for the bot');
    t.ok(seen.every((s) => JSON.stringify(s.to) === JSON.stringify([owner.id])), 'sent to the users still active');
    for (const s of seen) t.doesNotThrow(() => checkEvent(s.event), 'the event matches the reference schema');
    seen.splice(0);
    await doDeactivateUser(shard, realm, ann);
    t.equal(seen.length, 0, 'deactivating again sends nothing');
  });

  t.test('reactivating a user sends realm_user update is_active true, to them as well', async (t) => {
    await doReactivateUser(shard, realm, ann);
    t.equal(realm.users.get(ann.id)!.isActive, true, 'the user is active');
    t.equal(realm.users.get(bot.id)!.isActive, false, 'their bot stays deactivated, as in the reference');
    const updates = seen.filter((s) => s.event.type === 'realm_user');
    t.same(updates.map((s) => s.event), [{ type: 'realm_user', op: 'update', person: { user_id: ann.id, is_active: true } }], 'one update');
    t.same(updates[0].to, [owner.id, ann.id], 'sent to the active users, the reactivated one included');
    // Clients dropped the user from group members and subscriber lists on deactivation.
    t.match(seen.find((s) => s.event.type === 'user_group')?.event, { op: 'add_members', user_ids: [ann.id] }, 'back in their role group');
    t.match(seen.find((s) => s.event.type === 'subscription')?.event, { op: 'peer_add', user_ids: [ann.id] }, 'back in their channels\' subscriber lists');
    for (const s of seen) t.doesNotThrow(() => checkEvent(s.event), `${s.event.type} matches the reference schema`);
  });

  t.test('the changes are durable', async (t) => {
    const stored = shard.store.users.get([realm.id, ann.id]) as { isActive: boolean };
    t.equal(stored.isActive, true, 'the stored record matches the state');
    const storedBot = shard.store.users.get([realm.id, bot.id]) as { isActive: boolean };
    t.equal(storedBot.isActive, false, 'the bot\'s stored record too');
  });
});
