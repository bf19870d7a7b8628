import { setTimeout as sleep } from 'node:timers/promises';
import { log } from '../lib/log.js';
import { shardFor, type DirectoryEntry } from '../store/directory.js';
import type { DumpCursor } from '../store/realm-copy.js';
import { casJson, getJson, KEYS, type MoveRecord, type NodeRecord, type Placement } from './etcd.js';
import type { ClusterNode } from './node.js';
import { fetchDump, fetchFiles, removeRealmFiles } from './transfer.js';

/**
 * Moving an organization, as a state machine recorded in etcd (/stoa/moves/<subdomain>), driven
 * by the two nodes from what they read there, so that a kill -9 of either node or of etcd at any
 * step leaves a state that the restarted process resumes:
 *
 *   (none) --stoa cluster move--> pause --source--> copy --destination--> done
 *                                   \________ stoa cluster move --abort ______/  (record deleted)
 *
 *   pause  the source closes the organization to writes (503 + Retry-After; reads, registers
 *          and long-polls go on), waits for the writes under way, and sets `copy`.
 *   copy   the destination drops any partial copy of an earlier try, streams the rows and files
 *          from the source (transfer.ts), holds the realm paused, takes a fresh block of message
 *          ids, and in ONE transaction, if neither the move nor the placement changed since it
 *          read them, sets the placement to itself and the move to `done`. That is the switch.
 *   done   the destination serves the organization; the source, seeing the placement change,
 *          ends its queues (BAD_EVENT_QUEUE_ID: clients register again, through the proxy, at the
 *          new node) and keeps its rows until the operator drops them.
 *
 * The source stays paused for as long as the record says pause or copy, across its own
 * restarts; so nothing is written while the copy is taken, and the organization is never
 * served by both nodes: before the switch only the source serves it, after it only the
 * destination. A copy that fails (the source is down, etcd is down) is retried; the move
 * record's mod revision guards the switch, so an abort and a switch cannot both happen.
 */
export class MoveDriver {
  /** Source: organizations paused here, by the move that paused them. */
  private readonly pausedHere = new Map<string, string>();
  /** Destination: copies running, by subdomain. */
  private readonly copies = new Map<string, { moveId: string; abort: AbortController; done: Promise<void> }>();

  constructor(private readonly node: ClusterNode) {}

  /** Whether this node paused the organization for this move (the dump serves only then). */
  pausedFor(subdomain: string, moveId: string): boolean {
    return this.pausedHere.get(subdomain) === moveId;
  }

  async reconcile(): Promise<void> {
    const { node } = this;
    for (const [subdomain, move] of node.moves) {
      if (move.value.from === node.id) await this.asSource(subdomain, move.value, move.mod);
      if (move.value.to === node.id) this.asDestination(subdomain, move.value);
    }
    // Source: a pause whose move is gone (undone) ends. One whose move is done stays until the
    // placement, changed in the same transaction, has let the organization go.
    for (const [subdomain, moveId] of this.pausedHere) {
      const move = node.moves.get(subdomain)?.value;
      if (move?.id === moveId) {
        if (move.state === 'done' && !node.owns(subdomain)) this.pausedHere.delete(subdomain);
        continue;
      }
      this.pausedHere.delete(subdomain);
      const entry = node.directory.get(subdomain);
      if (entry && !entry.held && node.owns(subdomain)) {
        await node.pool.admin(entry.shard, { kind: 'admin', op: 'realmResume', realmId: entry.id });
        log.warn({ realm: subdomain }, 'cluster: move undone; the organization takes writes again');
      }
    }
    // Destination: copies of moves that are gone or changed stop (and clean up after them).
    for (const [subdomain, copy] of this.copies) {
      const move = node.moves.get(subdomain)?.value;
      if (!(move?.id === copy.moveId && move.to === node.id && move.state === 'copy')) copy.abort.abort();
    }
    // Arrivals: finished if this node owns them now, dropped if no move brings them any more.
    for (const entry of node.directory.list()) {
      if (entry.held !== 'arriving' || this.copies.has(entry.subdomain)) continue;
      const move = node.moves.get(entry.subdomain)?.value;
      if (node.owns(entry.subdomain)) await this.finishArrival(entry);
      else if (!(move?.to === node.id && move.state === 'copy')) await this.dropArrival(entry);
    }
  }

  private async asSource(subdomain: string, move: MoveRecord, mod: string): Promise<void> {
    const { node } = this;
    if (move.state === 'done') return;
    const entry = node.directory.get(subdomain);
    if (!entry || entry.held || !node.owns(subdomain)) return;
    if (this.pausedHere.get(subdomain) !== move.id) {
      await node.pool.admin(entry.shard, { kind: 'admin', op: 'realmPause', realmId: entry.id });
      this.pausedHere.set(subdomain, move.id);
      log.warn({ realm: subdomain, to: move.to }, 'cluster: organization paused for a move');
    }
    if (move.state === 'pause') await casJson(node.client, KEYS.move(subdomain), mod, { ...move, state: 'copy', paused: Date.now() } satisfies MoveRecord);
  }

  private asDestination(subdomain: string, move: MoveRecord): void {
    if (move.state !== 'copy' || this.copies.get(subdomain)?.moveId === move.id) return;
    const abort = new AbortController();
    const done = this.copy(subdomain, move, abort.signal)
      .catch((err) => log.error({ err, realm: subdomain }, 'cluster: move failed'))
      .finally(() => {
        if (this.copies.get(subdomain)?.abort === abort) this.copies.delete(subdomain);
        void this.node.reconcile().catch(() => undefined);
      });
    this.copies.set(subdomain, { moveId: move.id, abort, done });
  }

  /** Copies until it succeeds and switches, or the move is undone. */
  private async copy(subdomain: string, move: MoveRecord, signal: AbortSignal): Promise<void> {
    for (let attempt = 0; !signal.aborted; attempt++) {
      try {
        const stats = await this.copyOnce(subdomain, move, signal);
        if (await this.switchOver(subdomain, move, stats, signal)) return;
      } catch (err) {
        if (signal.aborted) break;
        log.warn({ err: (err as Error).message, realm: subdomain, attempt }, 'cluster: move copy failed; trying again');
        await this.note(subdomain, move.id, { error: (err as Error).message }).catch(() => undefined);
        await sleep(Math.min(5_000, 250 * 2 ** attempt), undefined, { signal }).catch(() => undefined);
      }
    }
    const entry = this.node.directory.get(subdomain);
    if (entry?.held === 'arriving' && !this.node.owns(subdomain)) await this.dropArrival(entry);
  }

  private async copyOnce(subdomain: string, move: MoveRecord, signal: AbortSignal): Promise<{ rows: number; files: number; bytes: number }> {
    const { node } = this;
    const placement = node.placements.get(subdomain)?.value;
    if (!placement) throw new Error(`no placement for "${subdomain}"`);
    let entry = node.directory.get(subdomain);
    if (entry && !entry.held) throw new Error(`"${subdomain}" is served here already`);
    const shard = entry?.shard ?? shardFor(subdomain, Math.max(node.config.shards, node.directory.shardsInUse()));
    // Whatever an earlier try or an earlier stay left here goes first.
    if (entry) await node.pool.admin(shard, { kind: 'admin', op: 'realmDetach', realmId: entry.id });
    await this.clearRows(shard, move.realmId);
    entry = { id: move.realmId, subdomain, name: placement.name, shard, held: 'arriving' };
    await node.directory.add(entry);
    const source = await getJson<NodeRecord>(node.client, KEYS.node(move.from));
    if (!source) throw new Error(`source node ${move.from} is not in the cluster`);
    const request = { address: source.value.address, secret: node.secret, realmId: move.realmId, moveId: move.id, signal };
    const dump = await fetchDump(request, (bytes) => node.pool.admin<number>(shard, { kind: 'admin', op: 'realmLoad', realmId: move.realmId, bytes }));
    await removeRealmFiles(node.config.dataDir, move.realmId);
    const files = await fetchFiles(request, node.config.dataDir);
    await node.pool.admin(shard, { kind: 'admin', op: 'realmAttach', realmId: move.realmId });
    return { rows: dump.rows, bytes: dump.bytes + files.bytes, files: files.files };
  }

  private async clearRows(shard: number, realmId: number): Promise<void> {
    let cursor: DumpCursor | undefined;
    for (;;) {
      const { next } = await this.node.pool.admin<{ next: DumpCursor | null }>(shard, { kind: 'admin', op: 'realmClear', realmId, cursor });
      if (!next) return;
      cursor = next;
    }
  }

  /**
   * The switch: one etcd transaction that gives the placement to this node and ends the move,
   * if neither changed since read. Retried while etcd is unreachable. False if the move changed
   * under us (undone): the copy is dropped by the caller.
   */
  private async switchOver(subdomain: string, move: MoveRecord, stats: { rows: number; files: number; bytes: number }, signal: AbortSignal): Promise<boolean> {
    const { node } = this;
    // Above the realm's newest id, which came from the source's block (ids.ts).
    await node.ids!.fresh();
    for (let attempt = 0; !signal.aborted; attempt++) {
      try {
        const [current, placement] = await Promise.all([getJson<MoveRecord>(node.client, KEYS.move(subdomain)), getJson<Placement>(node.client, KEYS.realm(subdomain))]);
        if (!current || !placement || current.value.id !== move.id) return false;
        if (current.value.state === 'done') return placement.value.node === node.id && (await this.served(subdomain), true);
        if (current.value.state !== 'copy' || placement.value.node !== move.from) return false;
        const switched = Date.now();
        const done: MoveRecord = { ...current.value, state: 'done', switched, ...stats, error: undefined };
        const owned: Placement = { ...placement.value, node: node.id };
        const res = await node.client
          .if(KEYS.move(subdomain), 'Mod', '==', current.mod)
          .and(KEYS.realm(subdomain), 'Mod', '==', placement.mod)
          .then(node.client.put(KEYS.realm(subdomain)).value(JSON.stringify(owned)), node.client.put(KEYS.move(subdomain)).value(JSON.stringify(done)))
          .commit();
        if (!res.succeeded) continue;
        // Serve at once, without waiting for our own watch to bring the change back.
        const revision = res.header.revision;
        node.placements.set(subdomain, { value: owned, mod: revision });
        node.moves.set(subdomain, { value: done, mod: revision });
        await this.served(subdomain);
        return true;
      } catch (err) {
        log.warn({ err: (err as Error).message, realm: subdomain }, 'cluster: switch not recorded yet (etcd unreachable?); trying again');
        await sleep(Math.min(2_000, 100 * 2 ** attempt), undefined, { signal }).catch(() => undefined);
      }
    }
    return false;
  }

  /** After the switch: the organization is served here. */
  private async served(subdomain: string): Promise<void> {
    const entry = this.node.directory.get(subdomain);
    if (entry) await this.finishArrival(entry);
    await this.note(subdomain, this.node.moves.get(subdomain)?.value.id ?? '', { served: Date.now() }).catch(() => undefined);
  }

  private async finishArrival(entry: DirectoryEntry): Promise<void> {
    const { node } = this;
    const { held: _held, ...served } = entry;
    await node.pool.admin(entry.shard, { kind: 'admin', op: 'realmAttach', realmId: entry.id });
    await node.directory.add(served);
    node.refreshRealms();
    await node.pool.admin(entry.shard, { kind: 'admin', op: 'realmResume', realmId: entry.id });
    log.warn({ realm: entry.subdomain }, 'cluster: organization moved here and served');
  }

  /** A copy no move brings any more: its rows, files and directory entry go. */
  private async dropArrival(entry: DirectoryEntry): Promise<void> {
    const { node } = this;
    await node.pool.admin(entry.shard, { kind: 'admin', op: 'realmDetach', realmId: entry.id });
    await this.clearRows(entry.shard, entry.id);
    await removeRealmFiles(node.config.dataDir, entry.id);
    await node.directory.remove(entry.subdomain);
    node.refreshRealms();
    log.warn({ realm: entry.subdomain }, 'cluster: partial copy of an undone move dropped');
  }

  /** Adds fields to the move's record, if it is still this move (best effort: a note). */
  private async note(subdomain: string, moveId: string, fields: Partial<MoveRecord>): Promise<void> {
    const current = await getJson<MoveRecord>(this.node.client, KEYS.move(subdomain));
    if (current?.value.id === moveId) await casJson(this.node.client, KEYS.move(subdomain), current.mod, { ...current.value, ...fields });
  }

  async stop(): Promise<void> {
    for (const copy of this.copies.values()) copy.abort.abort();
    await Promise.all([...this.copies.values()].map((c) => c.done));
  }
}
