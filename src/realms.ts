import { writeFile } from 'node:fs/promises';
import { doCreateRealm, SUBDOMAIN, type CreatedRealm, type NewRealm } from './api/realm/actions.js';
import type { ResolvedConfig } from './lib/config.js';
import { Shard } from './shard/shard.js';
import type { Directory } from './store/directory.js';
import { zuliprcPath } from './zuliprc.js';

export { zuliprcPath };

export class RealmCreationError extends Error {}

export interface RealmArgs {
  subdomain: string;
  name: string;
  ownerEmail: string;
  ownerFullName: string;
  ownerPassword?: string;
  /** The realm's id, when it was handed out elsewhere (a cluster's etcd). */
  id?: number;
}

/** Runs doCreateRealm on the shard that will own the realm: through the pool, or in-process. */
export type ShardRunner = (shard: number, spec: NewRealm) => Promise<CreatedRealm>;

/** A ShardRunner for when no server runs: opens the shard in this thread, creates, closes. */
export function inProcess(config: ResolvedConfig): ShardRunner {
  return async (index, spec) => {
    const shard = Shard.open(index, config);
    try {
      return await doCreateRealm(shard, spec);
    } finally {
      await shard.close();
    }
  };
}

/** What the server's first start and `stoa realm create` print: everything needed to log in. */
export function describeCreatedRealm(created: CreatedRealm & { zuliprc: string }): string {
  return [
    `Created organization "${created.realm.name}" at ${created.url}`,
    `  owner email:    ${created.owner.email}`,
    `  owner password: ${created.ownerPassword}`,
    `  owner API key:  ${created.owner.apiKey}`,
    `  zuliprc:        ${created.zuliprc}`,
  ].join('\n');
}


/** The standard zuliprc the Python bindings, zulip-js and zulip-terminal read. */
export function zuliprcText(created: CreatedRealm): string {
  return `[api]\nemail=${created.owner.email}\nkey=${created.owner.apiKey}\nsite=${created.url}\n`;
}

/**
 * Creates a realm end to end: picks its id and shard in the directory, has that shard create
 * the realm and its owner, records the realm, and writes the owner's zuliprc.
 */
export async function createRealm(config: ResolvedConfig, directory: Directory, run: ShardRunner, args: RealmArgs): Promise<CreatedRealm & { zuliprc: string }> {
  if (!SUBDOMAIN.test(args.subdomain)) {
    throw new RealmCreationError(`invalid subdomain "${args.subdomain}": use lower-case letters, digits and inner hyphens`);
  }
  if (directory.get(args.subdomain)) throw new RealmCreationError(`subdomain "${args.subdomain}" is already in use`);
  const shardCount = Math.max(config.shards, directory.shardsInUse());
  const { id: given, ...spec } = args;
  const { id, shard } = await directory.reserve(args.subdomain, shardCount, given);
  const created = await run(shard, { id, ...spec });
  await directory.add({ id, subdomain: args.subdomain, name: args.name, shard });
  const zuliprc = zuliprcPath(config.dataDir, args.subdomain);
  await writeFile(zuliprc, zuliprcText(created), { mode: 0o600 });
  return { ...created, zuliprc };
}
