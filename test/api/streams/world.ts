import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { doCreateRealm } from '../../../src/api/realm/actions.js';
import { createInitialChannels } from '../../../src/api/streams/actions.js';
import { subscribeToDefaultChannels } from '../../../src/api/subscriptions/actions.js';
import { doCreateUser } from '../../../src/api/users/actions.js';
import { loadConfig, resolveConfig, type Config } from '../../../src/lib/config.js';
import type { RealmState } from '../../../src/model/realm-state.js';
import { ROLE, type Role, type UserRecord } from '../../../src/model/types.js';
import { createRealm } from '../../../src/realms.js';
import { Shard } from '../../../src/shard/shard.js';
import { Directory } from '../../../src/store/directory.js';
import { startTestServer, type Credentials, type RequestOptions, type Response, type TestServer } from '../../helpers/server.js';

/**
 * Two realms with users of every role, prepared in the data directory before the server starts
 * (no API creates guests or administrators yet), then served over real HTTP.
 *
 * Each realm has: owner, admin (administrator), hamlet and othello (members), polonius (guest),
 * and hamlet's bot. Everyone is subscribed to the default channel "general".
 */
export type Person = Credentials & { userId: number };
export type Cast = Record<'owner' | 'admin' | 'hamlet' | 'othello' | 'polonius' | 'bot', Person>;
type Client = (method: string, path: string, opts?: RequestOptions) => Promise<Response>;

export interface World {
  ts: TestServer;
  /** The root realm, at the external host. */
  root: Cast;
  /** Realm "other", at other.<external host>. */
  other: Cast;
  otherHost: string;
  /** A client for a person of the root realm. */
  as(person: Person): Client;
  /** A client for a person of realm "other". */
  asOther(person: Person): Client;
}

export interface WorldOptions {
  /** Realm settings of the root realm to change (reference names, e.g. enable_spectator_access). */
  settings?: Record<string, unknown>;
  /** Realm settings naming a system group: setting -> group name (e.g. 'role:administrators'). */
  groupSettings?: Record<string, string>;
  /** Server configuration beyond the test defaults (e.g. an SMTP server). */
  config?: Partial<Config>;
  /** Further preparation of the root realm before the server starts (users, groups). */
  prepare?: (shard: Shard, realm: RealmState) => Promise<void>;
  /** The second realm's subdomain (default "other", which lands on the root realm's shard). */
  otherSubdomain?: string;
}

const cred = (u: UserRecord): Person => ({ email: u.email, apiKey: u.apiKey, userId: u.id });

async function populate(shard: Shard, realmId: number, domain: string, owner: UserRecord, opts: WorldOptions): Promise<Cast> {
  const realm = shard.realm(realmId)!;
  if (opts.settings || opts.groupSettings) {
    Object.assign(realm.realm.settings, opts.settings);
    for (const [name, group] of Object.entries(opts.groupSettings ?? {})) realm.realm.settings[name] = realm.systemGroupId(group);
    await shard.batch().put(shard.store.realms, realm.id, realm.realm).commit();
  }
  await createInitialChannels(shard, realm, owner);
  const make = async (name: string, role: Role, extra: Partial<Parameters<typeof doCreateUser>[2]> = {}) => {
    const user = await doCreateUser(shard, realm, { email: `${name}@${domain}`, fullName: name, role, ...extra });
    await subscribeToDefaultChannels(shard, realm, user);
    return user;
  };
  const hamlet = await make('hamlet', ROLE.member);
  const cast: Cast = {
    owner: cred(owner),
    admin: cred(await make('admin', ROLE.administrator)),
    hamlet: cred(hamlet),
    othello: cred(await make('othello', ROLE.member)),
    polonius: cred(await make('polonius', ROLE.guest)),
    bot: cred(await make('hamlet-bot', ROLE.member, { isBot: true, botType: 1, botOwnerId: hamlet.id })),
  };
  await opts.prepare?.(shard, realm);
  return cast;
}

export async function startWorld(t: { teardown(fn: () => unknown): void }, opts: WorldOptions = {}): Promise<World> {
  const dataDir = mkdtempSync(join(tmpdir(), 'stoa-test-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const config = resolveConfig(loadConfig({}, { dataDir, shards: 2, logLevel: 'silent' }), 0);
  const directory = new Directory(dataDir);
  const casts: Cast[] = [];
  const otherSubdomain = opts.otherSubdomain ?? 'other';
  for (const [subdomain, domain] of [['', 'example.com'], [otherSubdomain, 'other.example.com']]) {
    await createRealm(config, directory, async (index, spec) => {
      const shard = Shard.open(index, config);
      try {
        const created = await doCreateRealm(shard, spec);
        casts.push(await populate(shard, spec.id, domain, created.owner, subdomain === '' ? opts : {}));
        return created;
      } finally {
        await shard.close();
      }
    }, { subdomain, name: subdomain || 'Root', ownerEmail: `owner@${domain}`, ownerFullName: 'Owner' });
  }
  await directory.close();
  const ts = await startTestServer(t, opts.config ?? {}, { dataDir });
  const otherHost = `${otherSubdomain}.${ts.server.config.externalHost}`;
  return {
    ts,
    root: casts[0],
    other: casts[1],
    otherHost,
    as: (p) => (method, path, o = {}) => ts.request(method, path, { ...o, auth: p }),
    asOther: (p) => (method, path, o = {}) => ts.request(method, path, { ...o, auth: p, host: otherHost }),
  };
}

/** Subscribes `who` (default: the caller) to channels, creating them as needed; fails loudly. */
export async function subscribe(client: Client, names: string[], params: Record<string, unknown> = {}): Promise<Response> {
  const res = await client('POST', '/users/me/subscriptions', { params: { subscriptions: names.map((name) => ({ name })), ...params } });
  if (res.status !== 200) throw new Error(`subscribe ${names.join(', ')} failed: ${JSON.stringify(res.body)}`);
  return res;
}

/** A channel's id as the owner sees it through GET /streams (include_all). */
export async function streamId(client: Client, name: string): Promise<number> {
  const res = await client('GET', '/streams', { params: { include_all: true } });
  const found = res.body.streams?.find((s: { name: string }) => s.name === name);
  if (!found) throw new Error(`no channel ${name}`);
  return found.stream_id;
}
