import t from 'tap';
import type { RealmState } from '../../src/model/realm-state.js';
import { readModel } from '../../src/shard/model-rows.js';
import { inProcessShard, type InProcessShard } from '../helpers/shard.js';

/**
 * A failed LMDB commit (a full disk, an I/O error), simulated: the environment's transaction
 * rejects the way lmdb-js rejects a failed commit, with the cause in a second rejected promise.
 * The disk-full test (disk-full.test.ts) does the same on a real, full filesystem.
 */
function failNextCommits(env: { transaction: (fn: () => unknown) => Promise<unknown> }, count = 1): void {
  const real = env.transaction.bind(env);
  let left = count;
  env.transaction = (fn) => {
    if (left-- <= 0) return real(fn);
    const cause = Object.assign(new Error('No space left on device'), { code: 28 });
    const err = Object.assign(new Error('Commit failed (see commitError for details)'), { commitError: Promise.reject(cause) });
    return Promise.reject(err);
  };
}

/** What the shard holds in memory of a realm, comparable (maps sorted: a repair may re-insert). */
function model(realm: RealmState): string {
  const sorted = <K, V>(m: Map<K, V>) => [...m].sort(([a], [b]) => String(a).localeCompare(String(b)));
  const nested = <K, V>(m: Map<K, Map<number, V>>) => sorted(m).map(([k, inner]) => [k, sorted(inner)]).filter(([, inner]) => (inner as unknown[]).length > 0);
  return JSON.stringify({
    realm: realm.realm,
    users: sorted(realm.users),
    usersByEmail: [...realm.usersByEmail.keys()].sort(),
    streams: sorted(realm.streams),
    streamsByName: [...realm.streamsByName.keys()].sort(),
    defaultStreamIds: [...realm.defaultStreamIds].sort(),
    subs: nested(realm.subsByUser),
    subscribers: sorted(realm.subscribers).map(([k, v]) => [k, [...v].sort()]).filter(([, v]) => (v as unknown[]).length > 0),
    formerSubs: nested(realm.formerSubs),
    groups: sorted(realm.groups),
    systemGroups: sorted(realm.systemGroups),
    readMarks: sorted(realm.readMarks),
    subHistory: nested(realm.subHistory),
    userTopics: [...realm.users.keys()].map((u) => [...realm.userTopics.ofUser(u)]),
    channelFolders: sorted(realm.channelFolders),
    emoji: sorted(realm.realmEmoji),
    statuses: sorted(realm.people.statuses),
    profileFields: sorted(realm.people.profileFields),
    mutes: [...realm.users.keys()].map((u) => [...realm.people.mutesOf(u)]),
    alertWords: [...realm.users.keys()].map((u) => realm.people.alertWords(u)),
  });
}

/** The realm as a fresh start would read it from the store. */
const stored = (s: InProcessShard) => model(readModel(s.shard, 0).get(s.realm.id)!);

t.test('a failed commit fails its requests and leaves memory as the store has it', async (t) => {
  const s = await inProcessShard(t);
  const member = await s.member('member');
  const send = (content: string) => s.call(member, 'messages.send', { type: 'stream', to: 'general', topic: 'disk', content });
  t.equal((await send('before')).status, 200, 'a send before the failure');
  const before = model(s.realm);

  failNextCommits(s.shard.store.env);
  // A channel made by subscribing: the action changes memory (a new channel, a subscription,
  // its history) before its commit fails.
  const failed = await s.call(member, 'subscriptions.add', { subscriptions: [{ name: 'never made' }] });
  t.equal(failed.status, 503, '503');
  t.same(failed.body, { result: 'error', msg: 'The server could not save this change (storage error). Nothing was changed; try again later.', code: 'STORAGE_ERROR' }, 'a clear JSON error');
  await s.shard.recovering;
  t.equal(model(s.realm), before, 'memory was repaired from the store: the failed change is gone from it too');
  t.notOk(s.realm.streamByName('never made'), 'no such channel');

  const read = await s.call(member, 'messages.list', { anchor: 'newest', num_before: 5, num_after: 0 });
  t.equal(read.status, 200, 'reads go on');
  t.same(read.body.messages.map((m: { content: string }) => m.content), ['<p>before</p>'], 'with what was stored');

  failNextCommits(s.shard.store.env);
  const lost = await send('lost');
  t.equal(lost.status, 503, 'a send that fails');
  await s.shard.recovering;
  const after = await send('after');
  t.equal(after.status, 200, 'writes work again once commits succeed');
  const made = await s.call(member, 'subscriptions.add', { subscriptions: [{ name: 'made now' }] });
  t.equal(made.status, 200, 'the channel can be made now');
  const list = await s.call(member, 'messages.list', { anchor: 'newest', num_before: 5, num_after: 0 });
  t.same(list.body.messages.map((m: { content: string }) => m.content), ['<p>before</p>', '<p>after</p>'], 'the failed send is not there; the later one is');
  t.ok(list.body.messages[1].id > lost.body.id || lost.body.id === undefined, 'ids go on increasing');
});

t.test('event queues: a failed register leaves no queue; events of a failed action are never delivered', async (t) => {
  const s = await inProcessShard(t);
  const member = await s.member('listener');
  const queue = (await s.call(member, 'events.register', { event_types: ['message'] })).body.queue_id as string;
  failNextCommits(s.shard.store.env);
  const failedRegister = await s.call(member, 'events.register', { event_types: ['message'] });
  t.equal(failedRegister.status, 503, 'a register whose queue row cannot be written fails');
  await s.shard.recovering;
  failNextCommits(s.shard.store.env);
  t.equal((await s.call(s.owner, 'messages.send', { type: 'stream', to: 'general', topic: 't', content: 'lost' })).status, 503, 'a failed send');
  await s.shard.recovering;
  t.equal((await s.call(s.owner, 'messages.send', { type: 'stream', to: 'general', topic: 't', content: 'kept' })).status, 200, 'a send that works');
  const polled = await s.call(member, 'events.get', { queue_id: queue, last_event_id: -1, dont_block: true });
  t.same(polled.body.events.map((e: { message: { content: string } }) => e.message.content), ['kept'], 'the queue got only the committed message');
});

t.test('a failed commit is repaired at the cost of its rows, whatever the realm\'s size', async (t) => {
  const s = await inProcessShard(t);
  const member = await s.member('member');
  const other = await s.member('other');
  for (let i = 0; i < 300; i++) await s.member(`filler${i}`);
  t.equal(model(s.realm), stored(s), 'memory starts as the store has it');

  // Each a failed commit of a different shape: memory changed, store not.
  const failing: [string, () => Promise<{ status: number }>][] = [
    ['a send', () => s.call(member, 'messages.send', { type: 'stream', to: 'general', topic: 't', content: 'lost' })],
    ['a new channel', () => s.call(member, 'subscriptions.add', { subscriptions: [{ name: 'never made' }] })],
    ['leaving a channel', () => s.call(member, 'subscriptions.remove', { subscriptions: ['general'] })],
    ['a settings change', () => s.call(member, 'settings.update', { full_name: 'Renamed', enter_sends: false })],
    ['a mute', () => s.call(member, 'muting.mute', { muted_user_id: other.id })],
    ['alert words', () => s.call(member, 'alertWords.add', { alert_words: ['lost'] })],
    ['a status', () => s.call(member, 'userStatus.updateOwn', { status_text: 'away' })],
    ['a topic policy', () => s.call(member, 'userTopics.update', { stream_id: s.realm.streamByName('general')!.id, topic: 't', visibility_policy: 1 })],
    ['a group', () => s.call(s.owner, 'userGroups.create', { name: 'never', description: 'd', members: [member.id] })],
    ['a new user', () => s.call(s.owner, 'users.create', { email: 'never@example.com', password: 'a-long-password', full_name: 'Never' })],
  ];
  for (const [what, act] of failing) {
    failNextCommits(s.shard.store.env);
    const res = await act();
    t.equal(res.status, 503, `${what}: refused with the storage error`);
    await s.shard.recovering;
    t.equal(model(s.realm), stored(s), `${what}: memory is back to what the store holds`);
    t.ok(s.shard.lastRepairRows > 0 && s.shard.lastRepairRows < 40, `${what}: the repair read the failed write's rows (${s.shard.lastRepairRows}), not the realm's ${s.realm.users.size} users`);
  }
  t.notOk(s.realm.userByEmail('never@example.com'), 'the failed account is gone');
  t.equal(s.realm.users.get(member.id)!.fullName, 'member', 'the failed rename is undone');
  t.equal((await s.call(member, 'messages.send', { type: 'stream', to: 'general', topic: 't', content: 'kept' })).status, 200, 'writes work again');
});
