import { createHash } from 'node:crypto';
import { badRequest } from '../../lib/errors.js';
import type { RealmState } from '../../model/realm-state.js';
import type { UserRecord } from '../../model/types.js';
import type { Shard } from '../../shard/shard.js';
import { me, operation } from '../../api-kit/operation.js';

/**
 * Bot storage (the reference's BotStorageData, zerver/lib/bot_storage.py): string values under
 * string keys, per user (any user may keep some; bot frameworks use it for their bots' state).
 *
 *   botStorage  [realmId, userId, keyId] -> [key, value]
 *
 * keyId is the key itself, or `#sha256:<hex>` of a key too long for an LMDB key. The reference's
 * limit, USER_STATE_SIZE_LIMIT, counts the characters of every key and value of the user.
 */
export const STORAGE_LIMIT = 10_000_000;

const chars = (s: string) => {
  let n = 0;
  for (const _ of s) n++;
  return n;
};

const keyId = (key: string) => (Buffer.byteLength(key) > 400 ? `#sha256:${createHash('sha256').update(key).digest('hex')}` : key);

function stored(shard: Shard, realm: RealmState, user: UserRecord): Map<string, string> {
  const out = new Map<string, string>();
  for (const { value } of shard.store.botStorage.getRange({ start: [realm.id, user.id], end: [realm.id, user.id + 1] })) {
    const [key, text] = value as [string, string];
    out.set(key, text);
  }
  return out;
}

// One change at a time per user: each one sizes the whole storage before it writes.
const chains = new Map<string, Promise<unknown>>();
function serialized<T>(realm: RealmState, user: UserRecord, fn: () => Promise<T>): Promise<T> {
  const id = `${realm.id}:${user.id}`;
  const run = (chains.get(id) ?? Promise.resolve()).then(fn, fn);
  const tail = run.catch(() => undefined);
  chains.set(id, tail);
  void tail.then(() => chains.get(id) === tail && chains.delete(id));
  return run;
}

const missingKey = () => badRequest('Key does not exist.');

/** GET /bot_storage: the values of `keys`, or of every key. */
const get = operation<{ keys?: string[] }>({
  auth: 'user',
  params: { properties: { keys: { type: 'array', items: { type: 'string' } } } },
  handler: (ctx) => {
    const all = stored(ctx.shard, ctx.realm, me(ctx));
    const keys = ctx.params.keys?.length ? ctx.params.keys : [...all.keys()];
    const storage: Record<string, string> = {};
    for (const key of keys) {
      if (!all.has(key)) throw missingKey();
      storage[key] = all.get(key)!;
    }
    return { storage };
  },
});

/** PUT /bot_storage: sets the entries of `storage`, all or none, within the size limit. */
const put = operation<{ storage: Record<string, string> }>({
  auth: 'user',
  params: { properties: { storage: { type: 'object', additionalProperties: { type: 'string' } } }, required: ['storage'] },
  handler: (ctx) => {
    const user = me(ctx);
    return serialized(ctx.realm, user, async () => {
      const all = stored(ctx.shard, ctx.realm, user);
      let size = 0;
      for (const [key, value] of all) size += chars(key) + chars(value);
      for (const [key, value] of Object.entries(ctx.params.storage)) {
        size += chars(key) + chars(value) - (all.has(key) ? chars(key) + chars(all.get(key)!) : 0);
      }
      if (size > STORAGE_LIMIT) throw badRequest(`Request exceeds storage limit by ${size - STORAGE_LIMIT} characters. The limit is ${STORAGE_LIMIT} characters.`);
      const batch = ctx.shard.batch();
      for (const [key, value] of Object.entries(ctx.params.storage)) batch.put(ctx.shard.store.botStorage, [ctx.realm.id, user.id, keyId(key)], [key, value]);
      await batch.commit();
      return {};
    });
  },
});

/** DELETE /bot_storage: removes `keys` (all of them must exist), or everything. */
const remove = operation<{ keys?: string[] }>({
  auth: 'user',
  params: { properties: { keys: { type: 'array', items: { type: 'string' } } } },
  handler: (ctx) => {
    const user = me(ctx);
    return serialized(ctx.realm, user, async () => {
      const all = stored(ctx.shard, ctx.realm, user);
      const keys = ctx.params.keys?.length ? ctx.params.keys : [...all.keys()];
      for (const key of keys) if (!all.has(key)) throw missingKey();
      const batch = ctx.shard.batch();
      for (const key of keys) batch.del(ctx.shard.store.botStorage, [ctx.realm.id, user.id, keyId(key)]);
      await batch.commit();
      return {};
    });
  },
});

export const storageOperations = {
  'botStorage.get': get,
  'botStorage.put': put,
  'botStorage.remove': remove,
};
