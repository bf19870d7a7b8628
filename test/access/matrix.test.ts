import t from 'tap';
import { doSetRealmDeactivated } from '../../src/api/realm/deactivate.js';
import { Shard } from '../../src/shard/shard.js';
import { restart } from '../api/users/restart.js';
import { startWorld, streamId, subscribe, type Person } from '../api/streams/world.js';
import type { RequestOptions, Response } from '../helpers/server.js';
import { fetchRaw, uploadFiles } from '../helpers/upload.js';

/**
 * The access matrix: every kind of viewer against every kind of message, through every way of
 * reaching a message's content. A cell that answers where it should refuse is a leak.
 *
 * Viewers: the root realm's owner, administrator, two members, a guest and a bot, and the other
 * realm's owner (with their own credentials at either host). Messages: a public channel's, a
 * private channel's with shared history, a private channel's with protected history (before
 * and after a member joined), a direct message, a group DM with the guest, another realm's, and
 * an upload linked from the private channel. Ways in: fetching the message, listing it by id,
 * full-text search, its edit history, reacting to it, starring it, the events queued for the
 * viewer, and downloading the upload. Then the same after a user, and a realm, is deactivated.
 */
type Viewer = 'owner' | 'admin' | 'hamlet' | 'othello' | 'polonius' | 'bot' | 'stranger';
type Msg = 'public' | 'private' | 'protectedBefore' | 'protectedAfter' | 'dm' | 'groupDm';
const VIEWERS: Viewer[] = ['owner', 'admin', 'hamlet', 'othello', 'polonius', 'bot', 'stranger'];

// Who may read each message. Administrators read neither private channels they are not in nor
// others' DMs; a guest reads only what they are subscribed to or in; protected history shows a
// late subscriber only what came after they joined; no one reads across realms.
const READERS: Record<Msg, Viewer[]> = {
  public: ['owner', 'admin', 'hamlet', 'othello', 'bot'],
  private: ['hamlet'],
  protectedBefore: ['hamlet'],
  protectedAfter: ['hamlet', 'othello'],
  dm: ['hamlet', 'othello'],
  groupDm: ['hamlet', 'othello', 'polonius'],
};
// Who receives each message's event: subscribers and participants only.
const RECEIVERS: Record<Msg, Viewer[]> = {
  public: ['hamlet'],
  private: ['hamlet'],
  protectedBefore: ['hamlet'],
  protectedAfter: ['hamlet', 'othello'],
  dm: ['hamlet', 'othello'],
  groupDm: ['hamlet', 'othello', 'polonius'],
};

t.test('access matrix', async (t) => {
  t.setTimeout(300_000);
  const w = await startWorld(t);
  const people: Record<Exclude<Viewer, 'stranger'>, Person> = w.root;
  const client = (v: Viewer) => (method: string, path: string, opts: RequestOptions = {}): Promise<Response> =>
    v === 'stranger' ? w.ts.request(method, path, { ...opts, auth: w.other.owner, unchecked: true }) : w.ts.request(method, path, { ...opts, auth: people[v], unchecked: true });
  const hamlet = client('hamlet');

  // Queues first: every event from here on is seen or not.
  const queues = {} as Record<Viewer, string>;
  for (const v of VIEWERS.filter((v) => v !== 'stranger')) queues[v] = (await client(v)('POST', '/register', { params: { event_types: ['message'] } })).body.queue_id;
  const strangerQueue = (await w.asOther(w.other.owner)('POST', '/register', { params: { event_types: ['message'] } })).body.queue_id as string;

  const ids = {} as Record<Msg, number>;
  const words = {} as Record<Msg, string>;
  const send = async (m: Msg, params: Record<string, unknown>) => {
    words[m] = `zq${m.toLowerCase()}word`;
    const res = await hamlet('POST', '/messages', { params: { ...params, content: `${params.content ?? ''} ${words[m]}` } });
    if (res.status !== 200) throw new Error(`send ${m}: ${JSON.stringify(res.body)}`);
    ids[m] = res.body.id;
  };
  await subscribe(hamlet, ['town square']);
  await send('public', { type: 'stream', to: 'town square', topic: 'matrix' });
  const upload = await uploadFiles(w.ts, [{ filename: 'secret.txt', content: 'the secret file' }], { auth: people.hamlet });
  await subscribe(hamlet, ['secret'], { invite_only: true });
  await send('private', { type: 'stream', to: 'secret', topic: 'matrix', content: `[file](${upload.body.url})` });
  await subscribe(hamlet, ['vault'], { invite_only: true, history_public_to_subscribers: false });
  await send('protectedBefore', { type: 'stream', to: 'vault', topic: 'matrix' });
  const vault = await streamId(client('owner'), 'vault');
  const added = await hamlet('POST', '/users/me/subscriptions', { params: { subscriptions: [{ name: 'vault' }], principals: [people.othello.userId] } });
  t.equal(added.status, 200, 'othello joins the vault after its first message');
  await send('protectedAfter', { type: 'stream', to: 'vault', topic: 'matrix' });
  await send('dm', { type: 'direct', to: [people.othello.userId] });
  await send('groupDm', { type: 'direct', to: [people.othello.userId, people.polonius.userId] });
  const otherMsg = (await w.asOther(w.other.hamlet)('POST', '/messages', { params: { type: 'stream', to: 'general', topic: 'x', content: 'zqotherrealmword' } })).body.id as number;
  t.ok(vault > 0 && otherMsg > 0, 'the messages exist');

  // As in the reference, a narrow that names no channel searches the viewer's own messages; one
  // that names a channel searches its history, where the viewer may read it.
  const channelOf: Partial<Record<Msg, string>> = { public: 'town square', private: 'secret', protectedBefore: 'vault', protectedAfter: 'vault' };

  /** Every way of reaching a message as viewer `v`: which of them answered with the content. */
  const reach = async (v: Viewer, id: number, word: string, channel?: string) => {
    const c = client(v);
    const where = channel ? [['channel', channel]] : [];
    const got = await c('GET', `/messages/${id}`);
    const listed = await c('GET', '/messages', { params: { message_ids: [id], narrow: where } });
    const searched = await c('GET', '/messages', { params: { anchor: 'newest', num_before: 50, num_after: 0, narrow: [...where, ['search', word]] } });
    const history = await c('GET', `/messages/${id}/history`);
    const star = await c('POST', '/messages/flags', { params: { messages: [id], op: 'add', flag: 'starred' } });
    const react = await c('POST', `/messages/${id}/reactions`, { params: { emoji_name: 'octopus' } });
    return {
      fetch: got.status === 200,
      list: (listed.body.messages ?? []).some((m: { id: number }) => m.id === id),
      search: (searched.body.messages ?? []).some((m: { id: number }) => m.id === id),
      history: history.status === 200,
      star: star.status === 200,
      react: react.status === 200,
      refusals: [got, history, star, react].filter((r) => r.status !== 200).map((r) => r.status),
    };
  };

  for (const m of Object.keys(READERS) as Msg[]) {
    t.test(`message: ${m}`, async (t) => {
      for (const v of VIEWERS) {
        const may = READERS[m].includes(v);
        const r = await reach(v, ids[m], words[m], channelOf[m]);
        const expected = { fetch: may, list: may, search: may, history: may, star: may, react: may };
        const { refusals, ...seen } = r;
        t.same(seen, expected, `${v} ${may ? 'reads' : 'cannot reach'} it by every way`);
        t.ok(refusals.every((s) => s === 400 || s === 401), `${v}: refusals are 400/401, never a server error (${refusals.join(', ')})`);
      }
    });
  }

  t.test("flags on a message one cannot read: only what would change is refused, as in the reference", async (t) => {
    // The reference's do_update_message_flags checks access only for messages whose flag would
    // change from its default for a message not received (read, not starred): so marking an
    // unreadable message read, or unstarring it, is silently nothing, and starring is refused.
    const admin = client('admin');
    const flag = (op: string, name: string) => admin('POST', '/messages/flags', { params: { messages: [ids.dm], op, flag: name } });
    t.equal((await flag('add', 'starred')).status, 400, 'starring: 400 Invalid message(s)');
    t.equal((await flag('add', 'collapsed')).status, 400, 'collapsing: 400');
    t.equal((await flag('remove', 'read')).status, 400, 'marking unread: 400');
    t.equal((await flag('add', 'read')).status, 200, 'marking read: nothing to do, 200');
    t.equal((await flag('remove', 'starred')).status, 200, 'unstarring: nothing to do, 200');
    t.equal((await admin('GET', `/messages/${ids.dm}`)).status, 400, 'and it stays unreadable');
  });

  t.test('another realm', async (t) => {
    for (const v of VIEWERS.filter((v) => v !== 'stranger')) {
      for (const channel of [undefined, 'general']) {
        const r = await reach(v, otherMsg, 'zqotherrealmword', channel);
        const { refusals: _r, ...seen } = r;
        t.same(seen, { fetch: false, list: false, search: false, history: false, star: false, react: false }, `${v} of the root realm cannot reach it${channel ? ' (narrowed to a channel of the same name)' : ''}`);
      }
    }
    const own = await w.asOther(w.other.owner)('GET', `/messages/${otherMsg}`);
    t.equal(own.status, 200, "its own realm's owner can, at its own host");
    const wrongHost = await w.ts.request('GET', `/messages/${otherMsg}`, { auth: w.other.owner, unchecked: true });
    t.equal(wrongHost.status, 401, 'with the same credentials at the root host: unknown there');
  });

  t.test('the upload in the private channel', async (t) => {
    for (const v of VIEWERS) {
      const res = await fetchRaw(w.ts, upload.body.url, { auth: v === 'stranger' ? w.other.owner : people[v] });
      const may = READERS.private.includes(v);
      t.equal(res.status === 200, may, `${v}: ${may ? 'downloads it' : `refused (${res.status})`}`);
      if (!may) t.notMatch(res.body.toString(), 'the secret file', `${v}: no content`);
    }
  });

  t.test('events reach exactly the receivers', async (t) => {
    for (const v of VIEWERS) {
      const res = v === 'stranger'
        ? await w.asOther(w.other.owner)('GET', '/events', { params: { queue_id: strangerQueue, last_event_id: -1, dont_block: true } })
        : await client(v)('GET', '/events', { params: { queue_id: queues[v], last_event_id: -1, dont_block: true } });
      const got = new Set((res.body.events ?? []).map((e: { message: { id: number } }) => e.message.id));
      for (const m of Object.keys(RECEIVERS) as Msg[]) t.equal(got.has(ids[m]), RECEIVERS[m].includes(v), `${v} ${RECEIVERS[m].includes(v) ? 'gets' : 'does not get'} the ${m} message's event`);
      if (v !== 'stranger') t.equal(got.has(otherMsg), false, `${v} never gets the other realm's message`);
    }
  });

  t.test('a deactivated user reaches nothing', async (t) => {
    const res = await client('owner')('DELETE', `/users/${people.othello.userId}`);
    t.equal(res.status, 200, 'othello is deactivated');
    for (const m of ['dm', 'groupDm', 'protectedAfter', 'public'] as Msg[]) {
      const r = await reach('othello', ids[m], words[m], channelOf[m]);
      t.same({ fetch: r.fetch, list: r.list, search: r.search, star: r.star }, { fetch: false, list: false, search: false, star: false }, `${m}: nothing`);
      t.ok(r.refusals.every((s) => s === 401), 'every answer is 401');
    }
    t.equal((await fetchRaw(w.ts, upload.body.url, { auth: people.othello })).status === 200, false, 'nor the file');
  });

  t.test('a deactivated realm serves nothing', async (t) => {
    await restart(t, w.ts, async (config) => {
      for (let index = 0; index < config.shards; index++) {
        const shard = Shard.open(index, config);
        const realm = [...shard.realms.values()].find((r) => r.realm.subdomain === '');
        if (realm) await doSetRealmDeactivated(shard, realm, true);
        await shard.close();
      }
    });
    for (const v of ['owner', 'hamlet', 'bot'] as Viewer[]) {
      const r = await reach(v, ids.public, words.public, channelOf.public);
      t.same({ fetch: r.fetch, list: r.list, search: r.search }, { fetch: false, list: false, search: false }, `${v}: nothing`);
      t.ok(r.refusals.every((s) => s === 401), `${v}: REALM_DEACTIVATED (401)`);
    }
    t.equal((await w.asOther(w.other.owner)('GET', `/messages/${otherMsg}`)).status, 200, 'the other realm is unaffected');
  });
});
