import { badRequest } from '../../lib/errors.js';
import type { RealmState } from '../../model/realm-state.js';
import { realmSetting } from '../../model/realm-settings.js';
import type { RealmRecord } from '../../model/types.js';
import type { ShardEvent } from '../../shard/events.js';
import type { Shard } from '../../shard/shard.js';
import { realmUpdateEvent } from '../realm/update.js';

/**
 * Realm domains, after the reference's RealmDomain (zerver/views/realm_domains.py,
 * zerver/actions/realm_domains.py): with emails_restricted_to_domains on, only addresses of
 * these domains (or, where allowed, of their subdomains) may join. Stored on the realm record,
 * like linkifiers; each change is an event to every active user.
 */
export type RealmDomain = NonNullable<RealmRecord['domains']>[number];

export const domainsOf = (realm: RealmState): RealmDomain[] => realm.realm.domains ?? [];

export const domainView = (d: RealmDomain) => ({ domain: d.domain, allow_subdomains: d.allowSubdomains });

/** The reference's validate_domain; the message goes after "Invalid domain: ". */
function domainProblem(domain: string): string | null {
  if (domain.length === 0) return "Domain can't be empty.";
  if (!domain.includes('.')) return 'Domain must have at least one dot (.)';
  if (domain.length > 255) return 'Domain is too long';
  if (domain.startsWith('.') || domain.endsWith('.')) return 'Domain cannot start or end with a dot (.)';
  for (const part of domain.split('.')) {
    if (!part) return "Consecutive '.' are not allowed.";
    if (part.startsWith('-') || part.endsWith('-')) return "Subdomains cannot start or end with a '-'.";
    if (!/^[a-z0-9-]*$/.test(part)) return "Domain can only have letters, numbers, '.' and '-'s.";
  }
  return null;
}

/** The domain as stored (trimmed, lower-cased), or the reference's error. */
export function checkNewDomain(realm: RealmState, raw: string): string {
  const domain = raw.trim().toLowerCase();
  const problem = domainProblem(domain);
  if (problem) throw badRequest(`Invalid domain: ${problem}`);
  if (domainsOf(realm).some((d) => d.domain === domain)) throw badRequest(`The domain ${domain} is already a part of your organization.`);
  return domain;
}

export function existingDomain(realm: RealmState, domain: string): RealmDomain {
  const found = domainsOf(realm).find((d) => d.domain === domain);
  if (!found) throw badRequest(`No entry found for domain ${domain}.`);
  return found;
}

async function save(shard: Shard, realm: RealmState, domains: RealmDomain[], events: ShardEvent[], batch = shard.batch()): Promise<void> {
  const record: RealmRecord = { ...realm.realm, domains };
  // Without domains the restriction admits nobody, so the reference turns it off with the last one.
  const unrestrict = domains.length === 0 && realmSetting(realm, 'emails_restricted_to_domains') === true;
  if (unrestrict) record.settings = { ...record.settings, emails_restricted_to_domains: false };
  realm.realm = record;
  batch.put(shard.store.realms, record.id, record);
  const userIds = realm.activeUserIds();
  for (const event of events) batch.emit(realm.id, event, userIds);
  if (unrestrict) batch.emit(realm.id, realmUpdateEvent(realm, 'emails_restricted_to_domains', false), userIds);
  await batch.commit();
}

/** Adds the domain; resolves with its id. */
export async function doAddDomain(shard: Shard, realm: RealmState, domain: string, allowSubdomains: boolean): Promise<number> {
  const batch = shard.batch();
  const added = { id: shard.allocate(batch, 'realmDomain'), domain, allowSubdomains };
  await save(shard, realm, [...domainsOf(realm), added], [{ type: 'realm_domains', op: 'add', realm_domain: domainView(added) }], batch);
  return added.id;
}

export function doChangeDomain(shard: Shard, realm: RealmState, domain: RealmDomain, allowSubdomains: boolean): Promise<void> {
  const changed = { ...domain, allowSubdomains };
  const domains = domainsOf(realm).map((d) => (d.domain === domain.domain ? changed : d));
  return save(shard, realm, domains, [{ type: 'realm_domains', op: 'change', realm_domain: domainView(changed) }]);
}

export function doRemoveDomain(shard: Shard, realm: RealmState, domain: RealmDomain): Promise<void> {
  const domains = domainsOf(realm).filter((d) => d.domain !== domain.domain);
  return save(shard, realm, domains, [{ type: 'realm_domains', op: 'remove', domain: domain.domain }]);
}
