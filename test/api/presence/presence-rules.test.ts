import t from 'tap';
import { doUpdatePresence, PRESENCE_EVENT_USER_LIMIT, realmPresences } from '../../../src/api/presence/presence.js';
import { presenceOf, RealmPresence } from '../../../src/api/presence/state.js';
import { checkEvent } from '../../helpers/openapi.js';
import { ROLE, startShard } from '../realm/harness.js';

/**
 * The timing rules of presence, driven in-process with a chosen clock: when a report changes the
 * record, when it is announced, and the realm size above which nothing is announced.
 */
t.test('presence rules', async (t) => {
  const h = await startShard(t);
  const ann = await h.user(ROLE.member);
  const bob = await h.user(ROLE.member);
  const presenceEvents = () => h.events.filter((e) => e.event.type === 'presence');
  const t0 = Math.floor(Date.now() / 1000);

  t.test('POST /users/me/presence: announced on the first report and after a long silence only', async (t) => {
    h.events.length = 0;
    doUpdatePresence(h.shard, h.realm, ann, 'active', t0);
    t.equal(presenceEvents().length, 1, 'the first report is announced');
    const [first] = presenceEvents();
    t.same(first.userIds.sort((a, b) => a - b), [h.owner.id, ann.id, bob.id].sort((a, b) => a - b), 'to every active user of the realm');
    t.doesNotThrow(() => checkEvent(first.event), 'matches the reference');
    const record = () => presenceOf(h.shard).realm(h.realm.id).records.get(ann.id)!;
    const firstId = record().lastUpdateId;
    doUpdatePresence(h.shard, h.realm, ann, 'active', t0 + 30);
    t.equal(record().lastUpdateId, firstId, 'a report within 55 seconds changes nothing');
    doUpdatePresence(h.shard, h.realm, ann, 'active', t0 + 100);
    t.equal(record().lastActive, t0 + 100, 'a minute later it moves the activity time');
    t.ok(record().lastUpdateId > firstId, 'with a new update id');
    t.equal(presenceEvents().length, 1, 'but announces nothing: others still show her online');
    doUpdatePresence(h.shard, h.realm, ann, 'idle', t0 + 400);
    t.equal(presenceEvents().length, 1, 'an idle report after a silence is not announced');
    t.equal(record().lastActive, t0 + 100, 'nor does it move the activity time');
    doUpdatePresence(h.shard, h.realm, ann, 'active', t0 + 800);
    t.equal(presenceEvents().length, 2, 'becoming active after a long silence is announced');
    t.match(presenceEvents()[1].event, { presence: { website: { status: 'active', timestamp: t0 + 800 } } }, 'as active, now');
  });

  t.test('POST /users/me/presence: a legacy status is idle when activity lags the connection', async (t) => {
    doUpdatePresence(h.shard, h.realm, bob, 'active', t0);
    doUpdatePresence(h.shard, h.realm, bob, 'idle', t0 + 300);
    const { presences } = realmPresences(h.shard, h.realm, { slim: false });
    t.match(presences[bob.email], { aggregated: { status: 'idle', timestamp: t0 + 300 } }, 'idle, as of the last connection');
    const modern = realmPresences(h.shard, h.realm, { slim: true }).presences;
    t.same(modern[String(bob.id)], { active_timestamp: t0, idle_timestamp: t0 + 300 }, 'the modern format has both times');
  });

  t.test('POST /users/me/presence: a realm with presence disabled shows none and announces none', async (t) => {
    h.realm.realm.settings.presence_disabled = true;
    t.teardown(() => void (h.realm.realm.settings.presence_disabled = false));
    h.events.length = 0;
    const carl = await h.user(ROLE.member);
    doUpdatePresence(h.shard, h.realm, carl, 'active', t0);
    t.same(realmPresences(h.shard, h.realm, { slim: true }), { presences: {}, lastUpdateId: -1 }, 'no presence data');
    t.equal(presenceEvents().length, 0, 'no event');
  });
  t.test('POST /users/me/presence: no events in realms of more than 100 active users', async (t) => {
    // Active users as the limit counts them: system bots (Notification Bot, Welcome Bot) are not.
    while (h.realm.activeUserIds().length <= PRESENCE_EVENT_USER_LIMIT) await h.user(ROLE.member);
    const late = await h.user(ROLE.member);
    h.events.length = 0;
    doUpdatePresence(h.shard, h.realm, late, 'active', t0);
    t.equal(presenceEvents().length, 0, 'no event');
    t.ok(realmPresences(h.shard, h.realm, { slim: true }).presences[String(late.id)], 'the report is still recorded');
  });

});

t.test('presence: changes since an update id survive log compaction', async (t) => {
  const realm = new RealmPresence();
  let id = 0;
  for (let round = 0; round < 50; round++) {
    for (let user = 1; user <= 10; user++) realm.set(user, { lastActive: null, lastConnected: round, lastUpdateId: ++id });
  }
  const since = (after: number) => [...realm.changedSince(after)].map(([user, r]) => [user, r.lastUpdateId]);
  t.same(since(id - 3), [[8, id - 2], [9, id - 1], [10, id]], 'the last three updates, oldest first');
  t.equal(since(0).length, 10, 'from the start: each user once, at their latest');
  realm.set(3, { lastActive: null, lastConnected: 99, lastUpdateId: ++id });
  t.same(since(id - 1), [[3, id]], 'a user updated again appears once, at the new id');
  t.same(since(id), [], 'nothing after the newest');
});
