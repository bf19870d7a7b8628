import { ApiError, badRequest, insufficientPermission, invalidArgument } from '../../lib/errors.js';
import type { RealmState } from '../../model/realm-state.js';
import type { StreamRecord, UserRecord } from '../../model/types.js';
import type { Outbox } from '../../shard/outbox.js';
import type { Shard } from '../../shard/shard.js';
import { hasMetadataAccess, isGuest } from '../streams/access.js';
import { createStream } from '../streams/actions.js';
import { checkCanCreateChannel, checkStreamName, MAX_DESCRIPTION_LENGTH } from '../streams/checks.js';
import { parseChannelOptions, type ChannelOptions } from '../streams/create-channel.js';
import { addSubscriptions, removeSubscriptions, type SubPair } from './actions.js';
import { canRemoveOthers, checkColor, classifyForSubscribing, controlsUser, resolvePrincipals } from './checks.js';

/**
 * Subscribing and unsubscribing requests, checked whole before anything changes: each check
 * returns the change to make, so that POST and DELETE /users/me/subscriptions, and PATCH, which
 * does both in one transaction, share them.
 */
export type Apply = (shard: Shard, out: Outbox) => Record<string, unknown>;

export interface AddParams extends ChannelOptions {
  subscriptions: { name: string; description?: string; color?: string }[];
  principals?: unknown[];
  authorization_errors_fatal: boolean;
}

/** `{user id: [channel names]}`, the shape of subscribed and already_subscribed since feature level 289. */
function byUser(pairs: SubPair[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const { user, stream } of pairs) (out[String(user.id)] ??= []).push(stream.name);
  return out;
}

/** The requested channels, names checked and stripped, duplicates (ignoring case) dropped. */
function parseRequested(items: AddParams['subscriptions']) {
  const seen = new Map<string, { name: string; description: string }>();
  const colors = new Map<string, string>();
  items.forEach((item, i) => {
    const name = checkStreamName(item.name);
    // The reference keeps descriptions on one line.
    const description = (item.description ?? '').replace(/\n/g, ' ');
    if ([...description].length > MAX_DESCRIPTION_LENGTH) {
      throw invalidArgument('subscriptions', `subscriptions[${i}][description] is too long (limit: ${MAX_DESCRIPTION_LENGTH} characters)`);
    }
    const key = name.toLowerCase();
    if (item.color !== undefined) colors.set(key, checkColor(`subscriptions[${i}][color]`, item.color));
    if (!seen.has(key)) seen.set(key, { name, description });
  });
  return { requested: [...seen.values()], colors };
}

/** POST /users/me/subscriptions (see index.ts): the checks, in the reference's order. */
export function checkAddRequest(realm: RealmState, user: UserRecord, p: AddParams): Apply {
  if (isGuest(user)) throw badRequest('Not allowed for guest users');
  const { kind, groups, folderId } = parseChannelOptions(realm, p);
  const { requested, colors } = parseRequested(p.subscriptions);

  const existing: StreamRecord[] = [];
  const missing: typeof requested = [];
  for (const r of requested) {
    const stream = realm.streamByName(r.name);
    if (stream) existing.push(stream);
    else missing.push(r);
  }
  if (missing.length > 0) checkCanCreateChannel(realm, user, kind);

  const targets = p.principals && p.principals.length > 0 ? resolvePrincipals(realm, p.principals) : [user];
  const others = targets.some((t) => t.id !== user.id);
  const { authorized, unauthorized, cannotAdd } = classifyForSubscribing(realm, user, existing, others);
  if (unauthorized.length > 0 && p.authorization_errors_fatal) throw badRequest(`Unable to access channel (${unauthorized[0].name}).`);
  if (cannotAdd.length > 0) throw insufficientPermission();

  return (shard, out) => {
    const created = missing.map((r) =>
      createStream(shard, realm, out, { ...r, ...kind, historyPublicToSubscribers: p.history_public_to_subscribers ?? null, groups, folderId }, user),
    );
    const { subscribed, already } = addSubscriptions(shard, realm, out, [...authorized, ...created], targets, { colors });
    const result: Record<string, unknown> = { subscribed: byUser(subscribed), already_subscribed: byUser(already) };
    if (!p.authorization_errors_fatal) result.unauthorized = unauthorized.map((s) => s.name);
    return result;
  };
}

/**
 * DELETE /users/me/subscriptions (see index.ts). A channel the user cannot see is reported as
 * nonexistent, so names do not reveal private channels.
 */
export function checkRemoveRequest(realm: RealmState, user: UserRecord, p: { subscriptions: string[]; principals?: unknown[] }): Apply {
  const names = p.subscriptions.map(checkStreamName);
  const targets: UserRecord[] = p.principals && p.principals.length > 0 ? resolvePrincipals(realm, p.principals) : [user];
  const streams: StreamRecord[] = [];
  for (const name of names) {
    const stream = realm.streamByName(name);
    if (!stream || !hasMetadataAccess(realm, user, stream)) {
      throw new ApiError(`Channel '${name}' does not exist`, { code: 'STREAM_DOES_NOT_EXIST', data: { stream: name } });
    }
    if (!streams.includes(stream)) streams.push(stream);
  }
  if (targets.some((t) => !controlsUser(user, t)) && !canRemoveOthers(realm, user, streams)) throw insufficientPermission();
  return (shard, out) => {
    const { removed, notSubscribed } = removeSubscriptions(shard, realm, out, streams, targets);
    return { removed: removed.map((r) => r.stream.name), not_removed: notSubscribed.map((r) => r.stream.name) };
  };
}
