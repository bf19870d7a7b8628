import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { doCreateRealm } from '../../../src/api/realm/actions.js';
import { createInitialChannels } from '../../../src/api/streams/actions.js';
import { doCreateUser } from '../../../src/api/users/actions.js';
import { loadConfig, resolveConfig } from '../../../src/lib/config.js';
import type { MessageRecord } from '../../../src/model/message.js';
import type { RealmState } from '../../../src/model/realm-state.js';
import { ROLE, type Role, type StreamRecord, type UserRecord } from '../../../src/model/types.js';
import { routes } from '../../../src/routes.js';
import { dispatch } from '../../../src/host/dispatch.js';
import type { ShardEvent } from '../../../src/shard/events.js';
import { Shard } from '../../../src/shard/shard.js';
import { checkEvent, checkResponse } from '../../helpers/openapi.js';

/**
 * An in-process shard for the edit, move, delete and history tests: users of every role (no
 * endpoint sets roles), the events each action emits (checked against the reference's GET
 * /events schema), and messages made old without waiting (time limits). Requests go through the
 * server's own dispatcher, and every 2xx answer is checked against the OpenAPI reference as the
 * HTTP helper does.
 */
export interface Emitted {
  event: ShardEvent;
  userIds: number[];
}

export interface Reply {
  status: number;
  body: any;
}

export interface World {
  shard: Shard;
  realm: RealmState;
  owner: UserRecord;
  /** Events of the last call() (or since clearEvents()). */
  events: Emitted[];
  clearEvents(): void;
  user(name: string, role?: Role, opts?: { isBot?: boolean; botOwnerId?: number }): Promise<UserRecord>;
  call(user: UserRecord, op: string, params?: Record<string, unknown>): Promise<Reply>;
  send(user: UserRecord, to: string | number, topic: string, content: string): Promise<number>;
  dm(user: UserRecord, to: UserRecord[], content: string): Promise<number>;
  channel(creator: UserRecord, name: string, opts?: { inviteOnly?: boolean; historyPublic?: boolean; members?: UserRecord[] }): Promise<StreamRecord>;
  subscribe(user: UserRecord, name: string): Promise<void>;
  unsubscribe(user: UserRecord, name: string): Promise<void>;
  setRealm(settings: Record<string, unknown>): Promise<void>;
  /** Makes a message `seconds` older. */
  age(id: number, seconds: number): Promise<void>;
  stored(id: number): MessageRecord | undefined;
  get(user: UserRecord, id: number, params?: Record<string, unknown>): Promise<Reply>;
  edit(user: UserRecord, id: number, params: Record<string, unknown>): Promise<Reply>;
  groupId(name: string): number;
  ids(...users: UserRecord[]): number[];
}

const form = (params: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(params).filter(([, v]) => v !== undefined).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]));

export async function startWorld(t: { teardown(fn: () => unknown): void }): Promise<World> {
  const dataDir = mkdtempSync(join(tmpdir(), 'stoa-edit-test-'));
  const shard = Shard.open(0, resolveConfig(loadConfig({}, { dataDir, shards: 1, logLevel: 'silent' }), 9991));
  t.teardown(async () => {
    await shard.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const { owner } = await doCreateRealm(shard, { id: 1, subdomain: '', name: 'Edits', ownerEmail: 'owner@example.com', ownerFullName: 'Owner' });
  const realm = shard.realm(1)!;
  await createInitialChannels(shard, realm, owner);
  let events: Emitted[] = [];
  shard.events.subscribe((realmId, event, userIds) => {
    if (realmId === 1) events.push({ event, userIds: [...userIds].sort((a, b) => a - b) });
  });

  async function call(user: UserRecord, op: string, params: Record<string, unknown> = {}): Promise<Reply> {
    events.length = 0;
    const route = routes.find((r) => r.op === op);
    const pathParams: Record<string, string> = {};
    const rest: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(params)) {
      if (route?.path.includes(`{${k}}`)) pathParams[k] = String(v);
      else rest[k] = v;
    }
    const authorization = `Basic ${Buffer.from(`${user.email}:${user.apiKey}`).toString('base64')}`;
    const reply = await dispatch(shard, { kind: 'request', op, realmId: 1, authorization, params: form(rest), pathParams, userAgent: 'test', remoteAddr: '127.0.0.1' });
    const body = JSON.parse(reply.body);
    if (route && reply.status === 200) {
      const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) => pathParams[name] ?? name);
      checkResponse(route.method, path, body);
    }
    for (const { event } of events) {
      if (['update_message', 'delete_message'].includes(event.type)) checkEvent(event as Record<string, unknown>);
    }
    return { status: reply.status, body };
  }

  const must = (what: string, reply: Reply) => {
    if (reply.status !== 200) throw new Error(`${what} failed: ${JSON.stringify(reply.body)}`);
    return reply.body;
  };

  return {
    shard,
    realm,
    owner,
    get events() {
      return events;
    },
    clearEvents: () => {
      events = [];
    },
    user: (name, role = ROLE.member, opts = {}) =>
      doCreateUser(shard, realm, { email: `${name.toLowerCase()}@example.com`, fullName: name, role, isBot: opts.isBot, botType: opts.isBot ? 1 : null, botOwnerId: opts.botOwnerId ?? null }),
    call,
    async send(user, to, topic, content) {
      return must('send', await call(user, 'messages.send', { type: 'stream', to: String(to), topic, content })).id;
    },
    async dm(user, to, content) {
      return must('dm', await call(user, 'messages.send', { type: 'direct', to: to.map((u) => u.id), content })).id;
    },
    async channel(creator, name, opts = {}) {
      const members = opts.members ?? [];
      must(
        'channel',
        await call(creator, 'subscriptions.add', {
          subscriptions: [{ name }],
          invite_only: opts.inviteOnly ?? false,
          history_public_to_subscribers: opts.historyPublic ?? !opts.inviteOnly,
          principals: [creator.id, ...members.map((u) => u.id)],
        }),
      );
      return realm.streamByName(name)!;
    },
    async subscribe(user, name) {
      must('subscribe', await call(user, 'subscriptions.add', { subscriptions: [{ name }] }));
    },
    async unsubscribe(user, name) {
      must('unsubscribe', await call(user, 'subscriptions.remove', { subscriptions: [name] }));
    },
    async setRealm(settings) {
      must('realm update', await call(owner, 'realm.update', settings));
    },
    async age(id, seconds) {
      const msg = shard.read<MessageRecord>(shard.store.messages, id)!;
      const batch = shard.batch();
      batch.put(shard.store.messages, id, { ...msg, timestamp: msg.timestamp - seconds });
      await batch.commit();
    },
    stored: (id) => shard.read<MessageRecord>(shard.store.messages, id),
    get: (user, id, params = {}) => call(user, 'messages.get', { message_id: id, ...params }),
    edit: (user, id, params) => call(user, 'messages.update', { message_id: id, ...params }),
    groupId: (name) => realm.systemGroupId(name),
    ids: (...users) => users.map((u) => u.id).sort((a, b) => a - b),
  };
}

export { ROLE };
