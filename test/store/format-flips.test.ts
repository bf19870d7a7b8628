import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { open } from 'lmdb';
import { READ_FLIP } from '../../src/model/message.js';
import { directoryPath } from '../../src/store/directory.js';
import { blockIds } from '../../src/store/flips.js';
import { moveFlips } from '../../src/store/format-flips.js';
import { shardFolders } from '../../src/store/integrity.js';
import { openShardStore, type ShardStore } from '../../src/store/shard-store.js';
import { startTestServer } from '../helpers/server.js';
import { startWorld, streamId, subscribe, type Person, type World } from '../api/streams/world.js';
import { cleanEnv, MAIN } from '../cli/run.js';

/**
 * Store format 3 moved read flips from three rows each (a uflags row with READ_FLIP, its
 * uflagUsers entry, a uflagIdx 'flip' entry) to per-user blocks (store/flips.ts). A data directory
 * written in the old layout is upgraded on start and then shows every user the same unread
 * state over HTTP; an upgrade cut short (a committed chunk, or the process killed with SIGKILL)
 * loses nothing either.
 */

/** Rewrites every shard's flips in the format-2 layout and records format 2, as Stoa 2 left them. */
async function toFormat2(dataDir: string): Promise<number> {
  let flips = 0;
  for (const shard of shardFolders(dataDir)) {
    const store = openShardStore(dataDir, shard);
    await store.env.transaction(() => {
      for (const { key, value } of store.flips.getRange({})) {
        const [realmId, userId, block] = key as number[];
        for (const id of blockIds(block, value as Uint8Array)) {
          const bits = (store.uflags.get([realmId, userId, id]) as number | undefined) ?? 0;
          if (bits === 0) store.uflagUsers.put([realmId, id, userId], null);
          store.uflags.put([realmId, userId, id], bits | READ_FLIP);
          store.uflagIdx.put([realmId, userId, 'flip', id], null);
          flips++;
        }
        store.flips.remove(key);
      }
      for (const key of store.flipUsers.getKeys({})) store.flipUsers.remove(key);
    });
    await store.env.close();
  }
  const env = open({ path: directoryPath(dataDir), maxDbs: 4 });
  await env.openDB({ name: 'meta' }).put('format', 2);
  await env.close();
  return flips;
}

/** What is left of the old layout, and what the new one holds, in every shard. */
function layout(dataDir: string): { oldFlipRows: number; oldFlipIndex: number; blocks: number } {
  const out = { oldFlipRows: 0, oldFlipIndex: 0, blocks: 0 };
  for (const shard of shardFolders(dataDir)) {
    const store: ShardStore = openShardStore(dataDir, shard, true);
    for (const { value } of store.uflags.getRange({})) if ((value as number) & READ_FLIP) out.oldFlipRows++;
    for (const key of store.uflagIdx.getKeys({})) if ((key as unknown[])[2] === 'flip') out.oldFlipIndex++;
    out.blocks += store.flips.getCount();
    void store.env.close();
  }
  return out;
}

type Client = World['as'];

/** Everything a user can see of read state: flags of every message, is:unread, unread_msgs. */
async function snapshot(as: Client, who: Person): Promise<unknown> {
  const all = await as(who)('GET', '/messages', { params: { anchor: 'oldest', num_before: 0, num_after: 1000, narrow: '[]' } });
  const unread = await as(who)('GET', '/messages', { params: { anchor: 'newest', num_before: 1000, num_after: 0, narrow: JSON.stringify([{ operator: 'is', operand: 'unread' }]) } });
  const reg = await as(who)('POST', '/register', { params: { fetch_event_types: JSON.stringify(['message', 'update_message_flags']) } });
  return {
    flags: (all.body.messages as { id: number; flags: string[] }[]).map((m) => [m.id, m.flags]),
    unread: (unread.body.messages as { id: number }[]).map((m) => m.id),
    unreadMsgs: reg.body.unread_msgs,
  };
}

async function prepared(t: Test): Promise<{ w: World; people: Person[]; before: unknown[] }> {
  const w = await startWorld(t);
  const { hamlet, othello, admin } = w.root;
  await subscribe(w.as(admin), ['general']);
  const general = await streamId(w.as(hamlet), 'general');
  const send = async (who: Person, content: string, to: unknown = 'general', type = 'stream') => (await w.as(who)('POST', '/messages', { params: { type, to, topic: 'old', content } })).body.id as number;
  const ids: number[] = [];
  for (let i = 0; i < 12; i++) ids.push(await send(othello, i === 3 ? 'hi @**hamlet**' : `m${i}`));
  ids.push(await send(othello, 'a direct one', JSON.stringify([hamlet.userId]), 'direct'));
  for (const who of [hamlet, admin]) await w.as(who)('POST', '/mark_all_as_read');
  const flags = (who: Person, messages: number[], op: string, flag = 'read') => w.as(who)('POST', '/messages/flags', { params: { messages: JSON.stringify(messages), op, flag } });
  // Below the mark: unread again, one of them starred (a row with another bit), one mentioned.
  await flags(hamlet, [ids[2]], 'add', 'starred');
  await flags(hamlet, [ids[1], ids[2], ids[3], ids[7], ids[12]], 'remove');
  await flags(admin, [ids[0], ids[5]], 'remove');
  // Above the mark: read out of order.
  const later: number[] = [];
  for (let i = 0; i < 6; i++) later.push(await send(othello, `n${i}`));
  await flags(hamlet, [later[2], later[4]], 'add');
  await w.as(hamlet)('POST', '/messages/flags/narrow', {
    params: { anchor: later[5], include_anchor: true, num_before: 0, num_after: 1, narrow: JSON.stringify([{ operator: 'channel', operand: general }]), op: 'add', flag: 'read' },
  });
  const people = [hamlet, othello, admin];
  const before = await Promise.all(people.map((p) => snapshot(w.as, p)));
  await w.ts.close();
  return { w, people, before };
}

t.test('an old data directory is upgraded, and reads the same unread state', async (t) => {
  const { w, people, before } = await prepared(t);
  const dataDir = w.ts.dataDir;
  const moved = await toFormat2(dataDir);
  t.ok(moved >= 9, `the old layout holds the flips (${moved})`);
  t.match(layout(dataDir), { oldFlipRows: moved, oldFlipIndex: moved, blocks: 0 }, 'as three rows each');

  // An upgrade cut short after its first committed chunk (two rows): the next start finishes it.
  for (const shard of shardFolders(dataDir)) {
    const store = openShardStore(dataDir, shard);
    await moveFlips(store, 2, 1);
    await store.env.close();
  }
  const half = layout(dataDir);
  t.ok(half.blocks > 0 && half.oldFlipRows > 0, 'a part moved, a part not');

  const ts = await startTestServer(t, {}, { dataDir });
  t.match(ts.server.notices, [/^upgraded the data from format 2 to 3 \(2 -> 3: stores read flips as per-user sets of ids\)/], 'the start upgrades the data');
  const as: Client = (p) => (method, path, o = {}) => ts.request(method, path, { ...o, auth: p });
  const after = await Promise.all(people.map((p) => snapshot(as, p)));
  t.same(after, before, 'every user sees the same flags, is:unread and unread_msgs as before');
  await ts.close();
  t.match(layout(dataDir), { oldFlipRows: 0, oldFlipIndex: 0 }, 'nothing of the old layout is left');
});

t.test('an upgrade killed with SIGKILL loses nothing', async (t) => {
  const { w, people, before } = await prepared(t);
  const dataDir = w.ts.dataDir;
  const moved = await toFormat2(dataDir);
  t.ok(moved >= 9, 'the old layout holds the flips');
  // Each try kills the server at another point of its start (the copy aside, the move, after
  // it); every point must be safe, so the test does not depend on where it lands.
  for (const delay of [0, 50, 150]) {
    const copy = mkdtempSync(join(tmpdir(), 'stoa-flips-'));
    t.teardown(() => rmSync(copy, { recursive: true, force: true }));
    cpSync(dataDir, copy, { recursive: true });
    const child = spawn(process.execPath, [MAIN], { env: cleanEnv({ STOA_DATA_DIR: copy, STOA_PORT: '0', STOA_SHARDS: '2' }), stdio: 'ignore' });
    const exited = new Promise((resolve) => child.on('exit', resolve));
    // Wait for the copy aside to begin (the upgrade is next), then a little more.
    const until = Date.now() + 30_000;
    while (!existsSync(join(copy, 'upgrade-backups')) && child.exitCode === null && Date.now() < until) await new Promise((r) => setTimeout(r, 2));
    await new Promise((r) => setTimeout(r, delay));
    child.kill('SIGKILL');
    await exited;
    t.ok(readdirSync(copy).includes('upgrade-backups'), `killed after ${delay} ms into the upgrade`);
    const ts = await startTestServer(t, {}, { dataDir: copy });
    const as: Client = (p) => (method, path, o = {}) => ts.request(method, path, { ...o, auth: p });
    const after = await Promise.all(people.map((p) => snapshot(as, p)));
    t.same(after, before, 'the next start reads the same unread state');
    await ts.close();
    t.match(layout(copy), { oldFlipRows: 0, oldFlipIndex: 0 }, 'in the new layout');
  }
});
