import t from 'tap';
import { ROLE } from '../../src/model/types.js';
import { accessibleUserIds, canAccessUser, dmPartners, usersWhoCanAccess } from '../../src/model/user-access.js';
import { doCreateUser, doDeactivateUser } from '../../src/api/users/actions.js';
import type { ShardEvent } from '../../src/shard/events.js';
import { inProcessShard } from '../helpers/shard.js';

/** What HTTP cannot reach: bots, the audience of events, the direct-message cache. */
t.test('user access, in process', async (t) => {
  const { shard, realm, owner, member, call } = await inProcessShard(t);
  const ann = await member('ann');
  const bob = await member('bob');
  const gus = await member('gus', ROLE.guest);
  const bot = await doCreateUser(shard, realm, { email: 'helper-bot@example.com', fullName: 'Helper', isBot: true, botType: 1, botOwnerId: bob.id });
  // Gus shares nothing with anyone yet: he leaves the default channel.
  t.equal((await call(gus, 'subscriptions.remove', { subscriptions: ['general'] })).status, 200, 'Gus leaves general');

  t.ok(canAccessUser(shard, realm, gus, bob), 'role:everyone: a guest accesses everyone');
  t.equal(accessibleUserIds(shard, realm, gus), null, 'no limit to compute');
  const members = realm.systemGroupId('role:members');
  t.equal((await call(owner, 'realm.update', { can_access_all_users_group: { new: members } })).status, 200, 'restricted');

  t.notOk(canAccessUser(shard, realm, gus, bob), 'now Bob is out of reach');
  t.ok(canAccessUser(shard, realm, gus, bot), 'a bot never is');
  t.ok(canAccessUser(shard, realm, gus, gus), 'nor is oneself');
  t.ok(canAccessUser(shard, realm, ann, gus) && canAccessUser(shard, realm, owner, bob), 'members are not restricted');
  t.notOk(usersWhoCanAccess(shard, realm, bob).includes(gus.id), "Gus is not told of Bob's changes");
  t.ok(usersWhoCanAccess(shard, realm, bot).includes(gus.id), "but of the bot's");

  t.test('a direct message makes its participants accessible, and is remembered across loads', async (t) => {
    const seen: ShardEvent[] = [];
    const stop = shard.events.subscribe((_realm, event, ids) => {
      if ([...ids].includes(gus.id)) seen.push(event);
    });
    t.equal((await call(bob, 'messages.send', { type: 'direct', to: [gus.id], content: 'hi' })).status, 200, 'Bob writes to Gus');
    stop();
    t.same(seen.map((e) => [e.type, e.op ?? null]), [['realm_user', 'add'], ['message', null]], 'Gus hears of Bob first');
    t.ok(canAccessUser(shard, realm, gus, bob), 'Bob is accessible');
    t.ok(dmPartners(shard, realm, gus.id).has(bob.id), 'through the conversation');
  });

  t.test('deactivation: told to those who can access the user', async (t) => {
    const audiences: number[][] = [];
    const stop = shard.events.subscribe((_realm, event, ids) => {
      if (event.type === 'realm_user' && event.op === 'update') audiences.push([...ids]);
    });
    await doDeactivateUser(shard, realm, ann);
    await doDeactivateUser(shard, realm, bob);
    stop();
    t.notOk(audiences[0].includes(gus.id), 'Ann, whom Gus cannot access: not to him');
    t.ok(audiences[1].includes(gus.id), 'Bob, his correspondent: to him too');
  });

  t.test('the cache is rebuilt from the store', async (t) => {
    const fresh = await member('fresh', ROLE.guest);
    await call(fresh, 'subscriptions.remove', { subscriptions: ['general'] });
    t.equal((await call(owner, 'messages.send', { type: 'direct', to: [fresh.id], content: 'welcome' })).status, 200, 'the owner writes to a new guest');
    // Another shard instance reading the same store would start empty; here, drop the realm's
    // cache by asking for a user who has none yet, whose partners come from byUserDm.
    t.same([...dmPartners(shard, realm, owner.id)].sort((a, b) => a - b), [fresh.id], "the owner's partners, read from the index");
  });
});
