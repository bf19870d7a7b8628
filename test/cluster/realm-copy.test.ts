import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { unpack } from 'msgpackr';
import t from 'tap';
import { doCreateRealm } from '../../src/api/realm/actions.js';
import { loadConfig, resolveConfig } from '../../src/lib/config.js';
import type { UserRecord } from '../../src/model/types.js';
import { dispatch } from '../../src/host/dispatch.js';
import { runRealmMove } from '../../src/host/realm-moves.js';
import { Shard } from '../../src/shard/shard.js';
import { clearRealm, dumpRealm, loadRows, TABLE_SCOPES, type DumpCursor, type Row } from '../../src/store/realm-copy.js';
import { openShardStore, type ShardStore } from '../../src/store/shard-store.js';
import { inProcessShard } from '../helpers/shard.js';

/**
 * A realm's rows out of one shard store and into another (src/store/realm-copy.ts), the write
 * tracking that lets a move copy while the realm is in use (src/host/realm-moves.ts), and the
 * pause that holds its writes.
 */
function all(store: ShardStore, realmId: number): Row[] {
  const rows: Row[] = [];
  for (let cursor: DumpCursor | null = { step: 0, after: null }; cursor; ) {
    const chunk = dumpRealm(store, realmId, cursor, 64 << 10, 1_000);
    rows.push(...(unpack(chunk.bytes) as Row[]));
    cursor = chunk.next;
  }
  return rows;
}

/** The realm's rows, the shard's counters left out (each store has its own). */
const own = (rows: Row[]) => rows.filter(([table, key]) => !(table === 'meta' && String(key).startsWith('seq:')));
const sorted = (rows: Row[]) => own(rows).map((r) => JSON.stringify(r)).sort();

async function copyInto(from: ShardStore, to: ShardStore, realmId: number): Promise<number> {
  let rows = 0;
  for (let cursor: DumpCursor | null = { step: 0, after: null }; cursor; ) {
    const chunk = dumpRealm(from, realmId, cursor, 64 << 10, 1_000);
    rows += await loadRows(to, chunk.bytes);
    cursor = chunk.next;
  }
  return rows;
}

t.test('every table of a shard says how its rows belong to a realm', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'stoa-copy-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const store = openShardStore(dir, 0);
  const tables = Object.keys(store).filter((k) => k !== 'env').sort();
  await store.env.close();
  t.same(Object.keys(TABLE_SCOPES).sort(), tables, 'a new table must be named in TABLE_SCOPES before a move can carry it');
});

t.test('a realm copied, changed while tracked, copied again, and cleared', async (t) => {
  const src = await inProcessShard(t);
  const { shard } = src;
  const other = await doCreateRealm(shard, { id: 2, subdomain: 'other', name: 'Other', ownerEmail: 'o@other.test', ownerFullName: 'O' });
  const bea = await src.member('bea');
  const cy = await src.member('cy');
  const call = async (user: UserRecord, op: string, params: Record<string, unknown> = {}, pathParams: Record<string, string> = {}, method = 'POST', realmId = 1) => {
    const form = Object.fromEntries(Object.entries(params).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]));
    const reply = await dispatch(shard, { kind: 'request', op, method, realmId, authorization: `Basic ${Buffer.from(`${user.email}:${user.apiKey}`).toString('base64')}`, params: form, pathParams, userAgent: 'test', remoteAddr: '127.0.0.1' });
    return { status: reply.status, body: JSON.parse(reply.body) };
  };
  const send = (user: UserRecord, content: string) => call(user, 'messages.send', { type: 'stream', to: 'general', topic: 'copy', content });
  const first = await send(src.owner, 'first');
  // A group DM (a dmgroup row in meta), a reaction, a draft and a scheduled message (a job).
  await call(bea, 'messages.send', { type: 'direct', to: [src.owner.id, cy.id], content: 'the three of us' });
  await call(bea, 'messages.addReaction', { emoji_name: 'smile' }, { message_id: String(first.body.id) });
  await call(cy, 'drafts.create', { drafts: [{ type: 'stream', to: [], topic: 'later', content: 'a draft', timestamp: 1 }] });
  t.equal((await call(cy, 'scheduledMessages.create', { type: 'stream', to: 1, topic: 'soon', content: 'tomorrow', scheduled_delivery_timestamp: Math.floor(Date.now() / 1000) + 86_400 })).status, 200, 'a scheduled message');
  await call(other.owner, 'messages.send', { type: 'stream', to: 'general', topic: 'elsewhere', content: 'another realm' }, {}, 'POST', 2);
  // A call link, as a message would carry it: signed with the realm's key (a meta row).
  const link = (await call(bea, 'calls.bigBlueButtonCreate', { meeting_name: 'standup' }, {}, 'GET')).body.url as string;

  const dir = mkdtempSync(join(tmpdir(), 'stoa-copy-dest-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  // BigBlueButton at an address nobody answers: a link that verifies gets as far as calling it.
  const bigBlueButton = { url: 'http://127.0.0.1:9/bigbluebutton/', secret: 'bbb' };
  const dest = Shard.open(0, resolveConfig(loadConfig({}, { dataDir: dir, shards: 1, logLevel: 'silent', bigBlueButton }), 0));
  t.teardown(() => dest.close());

  // The warm copy, taken while writes go on and are tracked.
  await runRealmMove(shard, { kind: 'admin', op: 'realmTrack', realmId: 1, session: 's1' });
  const warm = await copyInto(shard.store, dest.store, 1);
  t.ok(warm > 20, `the copy carried the realm's rows (${warm})`);
  t.same(sorted(all(dest.store, 1)), sorted(all(shard.store, 1)), 'the copy holds exactly the realm\'s rows');
  t.same(own(all(dest.store, 2)), [], 'and nothing of the other realm');

  const second = await send(bea, 'during the copy');
  await call(bea, 'messages.removeReaction', { emoji_name: 'smile' }, { message_id: String(first.body.id) });
  t.equal((await call(src.owner, 'messages.delete', {}, { message_id: String(first.body.id) }, 'DELETE')).status, 200, 'a message deleted while tracked');
  await call(other.owner, 'messages.send', { type: 'stream', to: 'general', topic: 'elsewhere', content: 'not tracked' }, {}, 'POST', 2);

  t.equal(await runRealmMove(shard, { kind: 'admin', op: 'realmDelta', realmId: 1, session: 's1' }), null, 'no delta before the realm is paused');
  await runRealmMove(shard, { kind: 'admin', op: 'realmPause', realmId: 1 });
  const refused = await send(bea, 'while paused');
  t.equal(refused.status, 503, 'a paused realm refuses writes');
  t.equal(refused.body.code, 'SERVICE_UNAVAILABLE', 'in the 503 clients retry');
  t.equal((await call(bea, 'messages.list', { anchor: 'newest', num_before: 5, num_after: 0 }, {}, 'GET')).status, 200, 'and still answers reads');
  t.equal((await call(other.owner, 'messages.send', { type: 'stream', to: 'general', topic: 'elsewhere', content: 'other realm goes on' }, {}, 'POST', 2)).status, 200, 'the shard\'s other realms go on');
  t.equal(await runRealmMove(shard, { kind: 'admin', op: 'realmDelta', realmId: 1, session: 'another' }), null, 'no delta for another session');
  const delta = (await runRealmMove(shard, { kind: 'admin', op: 'realmDelta', realmId: 1, session: 's1' })) as { bytes: Uint8Array; rows: number };
  const deltaRows = unpack(delta.bytes) as Row[];
  t.ok(deltaRows.some(([table, key]) => table === 'messages' && key === second.body.id), 'the delta has the message sent during the copy');
  t.ok(deltaRows.some(([table, key, , deleted]) => table === 'messages' && key === first.body.id && deleted), 'and the deletion');
  t.notOk(deltaRows.some(([table, key]) => TABLE_SCOPES[table] === 'prefix' && (key as number[])[0] === 2), 'and nothing of the other realm');
  t.ok(delta.rows < warm / 2, `it is small next to the whole copy (${delta.rows} rows)`);
  await loadRows(dest.store, delta.bytes);
  t.same(sorted(all(dest.store, 1)), sorted(all(shard.store, 1)), 'copy plus delta hold exactly the realm as it stands');

  // The copy serves: its new ids lie above the realm's, its counters above its ids.
  await runRealmMove(dest, { kind: 'admin', op: 'realmAttach', realmId: 1 });
  dest.messageIds.raiseTo(shard.messageIds.current());
  await runRealmMove(dest, { kind: 'admin', op: 'realmResume', realmId: 1 });
  const there = dest.realm(1)!;
  const joined = await dispatch(dest, { kind: 'request', op: 'calls.bigBlueButtonJoin', method: 'GET', realmId: 1, authorization: `Basic ${Buffer.from(`${cy.email}:${cy.apiKey}`).toString('base64')}`, params: { bigbluebutton: new URL(link, 'http://x').searchParams.get('bigbluebutton')! }, pathParams: {}, userAgent: 'test', remoteAddr: '127.0.0.1' });
  t.match(joined.body, /Error connecting to the BigBlueButton server/, 'a call link made before the move still verifies on the copy');
  t.equal(there.users.size, shard.realm(1)!.users.size, 'the copy has the realm\'s users');
  const reply = await dispatch(dest, { kind: 'request', op: 'messages.send', method: 'POST', realmId: 1, authorization: `Basic ${Buffer.from(`${bea.email}:${bea.apiKey}`).toString('base64')}`, params: { type: 'stream', to: 'general', topic: 'copy', content: 'on the copy' }, pathParams: {}, userAgent: 'test', remoteAddr: '127.0.0.1' });
  t.ok(JSON.parse(reply.body).id > second.body.id, 'a send on the copy takes a higher id');
  const user = await dispatch(dest, { kind: 'request', op: 'users.create', method: 'POST', realmId: 1, authorization: `Basic ${Buffer.from(`${src.owner.email}:${src.owner.apiKey}`).toString('base64')}`, params: { email: 'new@example.com', password: 'a-long-password', full_name: 'New' }, pathParams: {}, userAgent: 'test', remoteAddr: '127.0.0.1' });
  t.ok(JSON.parse(user.body).user_id > Math.max(...shard.realm(1)!.users.keys()), 'a new user on the copy gets an id no user of the realm has');

  // The source lets go: its queues end, its jobs go, its rows stay until cleared.
  await runRealmMove(shard, { kind: 'admin', op: 'realmDetach', realmId: 1 });
  t.notOk(shard.realm(1), 'the source forgets the realm');
  t.notOk([...shard.store.jobs.getRange({})].some(({ value }) => (value as { realmId: number }).realmId === 1), 'and its jobs');
  t.ok(own(all(shard.store, 1)).length > 0, 'its rows stay');
  let cursor: DumpCursor | undefined;
  for (;;) {
    const { next } = await clearRealm(shard.store, 1, cursor, 7);
    if (!next) break;
    cursor = next;
  }
  t.same(own(all(shard.store, 1)), [], 'a clear in small steps removes every row of the realm');
  t.ok(own(all(shard.store, 2)).length > 0, 'and none of the other realm');
});
