import { log } from '../lib/log.js';
import { shardFor, type DirectoryEntry } from '../store/directory.js';
import type { DumpCursor } from '../store/realm-copy.js';
import type { NodeContext } from './context.js';
import { getJson, KEYS, type MoveRecord, type NodeRecord } from './etcd.js';
import { DeltaRefused, fetchDump, fetchFiles, removeRealmFiles, type TransferRequest } from './transfer.js';

/**
 * The destination's copy of a moving realm (moves.ts decides when; this is how):
 *
 *   warm   while the source still takes writes (it tracks the keys they touch): every row and
 *          file, into this node's shard, under a directory entry held 'arriving';
 *   delta  once the source is paused: the rows written since the warm copy began, as they stand,
 *          and the files changed since; or, if there was no warm copy in this process (a
 *          restart) or the source lost its tracker (its restart), everything again;
 *   attach the realm is read into the shard's memory, paused until the switch.
 */
export interface CopyStats {
  rows: number;
  files: number;
  bytes: number;
}

export class RealmCopier {
  constructor(private readonly node: NodeContext) {}

  private async request(move: MoveRecord, signal: AbortSignal): Promise<TransferRequest> {
    const source = await getJson<NodeRecord>(this.node.client, KEYS.node(move.from));
    if (!source) throw new Error(`source node ${move.from} is not in the cluster`);
    return { address: source.value.address, secret: this.node.secret, realmId: move.realmId, moveId: move.id, session: move.session, signal };
  }

  /** Drops whatever an earlier try or an earlier stay left, and holds a fresh entry 'arriving'. */
  private async prepare(subdomain: string, move: MoveRecord): Promise<number> {
    const { node } = this;
    const placement = node.placements.get(subdomain)?.value;
    if (!placement) throw new Error(`no placement for "${subdomain}"`);
    const entry = node.directory.get(subdomain);
    if (entry && !entry.held) throw new Error(`"${subdomain}" is served here already`);
    const shard = entry?.shard ?? shardFor(subdomain, Math.max(node.config.shards, node.directory.shardsInUse()));
    if (entry) await node.pool.admin(shard, { kind: 'admin', op: 'realmDetach', realmId: entry.id });
    await this.clearRows(shard, move.realmId);
    await node.directory.add({ id: move.realmId, subdomain, name: placement.name, shard, held: 'arriving' });
    return shard;
  }

  private load(shard: number, realmId: number) {
    return (bytes: Uint8Array) => this.node.pool.admin<number>(shard, { kind: 'admin', op: 'realmLoad', realmId, bytes });
  }

  /** Every row and file; returns the time the files were read from, for the delta. */
  async whole(subdomain: string, move: MoveRecord, signal: AbortSignal): Promise<CopyStats & { filesSince: number }> {
    const shard = await this.prepare(subdomain, move);
    const req = await this.request(move, signal);
    // Files changed from a little before the walk began are read again by the delta.
    const filesSince = Date.now() - 2_000;
    const dump = await fetchDump(req, this.load(shard, move.realmId));
    const files = await fetchFiles(req, this.node.config.dataDir);
    return { rows: dump.rows, files: files.files, bytes: dump.bytes + files.bytes, filesSince };
  }

  /** The rows and files changed since the warm copy; DeltaRefused if the source lost track. */
  async delta(subdomain: string, move: MoveRecord, filesSince: number, signal: AbortSignal): Promise<CopyStats> {
    const entry = this.node.directory.get(subdomain);
    if (entry?.held !== 'arriving' || entry.id !== move.realmId) throw new DeltaRefused('no warm copy here');
    const req = await this.request(move, signal);
    const dump = await fetchDump(req, this.load(entry.shard, move.realmId), 'delta');
    const files = await fetchFiles(req, this.node.config.dataDir, filesSince);
    return { rows: dump.rows, files: files.files, bytes: dump.bytes + files.bytes };
  }

  /** Reads the copied realm into the shard's memory, held paused. */
  async attach(subdomain: string): Promise<void> {
    const entry = this.node.directory.get(subdomain)!;
    await this.node.pool.admin(entry.shard, { kind: 'admin', op: 'realmAttach', realmId: entry.id });
  }

  async clearRows(shard: number, realmId: number): Promise<number> {
    let cursor: DumpCursor | undefined;
    let rows = 0;
    for (;;) {
      const { deleted, next } = await this.node.pool.admin<{ deleted: number; next: DumpCursor | null }>(shard, { kind: 'admin', op: 'realmClear', realmId, cursor });
      rows += deleted;
      if (!next) return rows;
      cursor = next;
    }
  }

  /** After the switch: the organization is served here. */
  async finishArrival(entry: DirectoryEntry): Promise<void> {
    const { node } = this;
    const { held: _held, ...served } = entry;
    await node.pool.admin(entry.shard, { kind: 'admin', op: 'realmAttach', realmId: entry.id });
    await node.directory.add(served);
    node.refreshRealms();
    await node.pool.admin(entry.shard, { kind: 'admin', op: 'realmResume', realmId: entry.id });
    log.warn({ realm: entry.subdomain }, 'cluster: organization moved here and served');
  }

  /** A copy no move brings any more: its rows, files and directory entry go. */
  async dropArrival(entry: DirectoryEntry): Promise<void> {
    const { node } = this;
    await node.pool.admin(entry.shard, { kind: 'admin', op: 'realmDetach', realmId: entry.id });
    await this.clearRows(entry.shard, entry.id);
    await removeRealmFiles(node.config.dataDir, entry.id);
    await node.directory.remove(entry.subdomain);
    node.refreshRealms();
    log.warn({ realm: entry.subdomain }, 'cluster: partial copy of an undone move dropped');
  }
}
