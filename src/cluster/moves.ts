import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { log } from '../lib/log.js';
import type { NodeContext } from './context.js';
import { RealmCopier, type CopyStats } from './copy.js';
import { casJson, getJson, KEYS, type MoveRecord, type Placement } from './etcd.js';
import { DeltaRefused } from './transfer.js';

/**
 * Moving an organization, as a state machine recorded in etcd (/stoa/moves/<subdomain>), driven
 * by the two nodes from what they read there, so that a kill -9 of either node or of etcd at any
 * step leaves a state that the restarted process resumes:
 *
 *   stoa cluster move --> warm --dest--> pause --source--> copy --dest--> done
 *                          \______ stoa cluster move --abort (record deleted) ______/
 *
 *   warm   the source tracks the keys every write to the organization touches (a `session`,
 *          in its memory) and says so in the record; the destination copies every row and file
 *          while the organization is in use (copy.ts), then asks for the pause.
 *   pause  the source closes the organization to writes (503 + Retry-After; reads, registers
 *          and long-polls go on), waits for the writes under way, and sets `copy`.
 *   copy   the destination reads the rows written since its warm copy began (the delta) and the
 *          files changed since; without a warm copy of this session (either node restarted) it
 *          copies everything again, the organization paused meanwhile. It holds the realm
 *          paused, takes a fresh block of message ids, and in ONE transaction, if neither the
 *          move nor the placement changed since it read them, gives the placement to itself and
 *          sets `done`. That is the switch.
 *   done   the destination serves the organization; the source, seeing the placement change,
 *          ends its queues (BAD_EVENT_QUEUE_ID: clients register again, through the proxy, at the
 *          new node) and keeps its rows until the operator drops them.
 *
 * The source stays paused for as long as the record says pause or copy, across its own
 * restarts, so nothing is written while the last copy is taken, and the organization is never
 * served by both nodes: before the switch only the source serves it, after it only the
 * destination. A copy that fails (the source is down, etcd is down) is tried again; the record's
 * mod revision guards the switch, so an abort and a switch cannot both happen.
 */
export class MoveDriver {
  /** Source: organizations paused here, by move id. */
  private readonly pausedHere = new Map<string, string>();
  /** Source: tracking sessions, by subdomain. */
  private readonly sessions = new Map<string, { moveId: string; session: string }>();
  /** Destination: the warm copy taken in this process, by subdomain. */
  private readonly warmed = new Map<string, { moveId: string; session: string; stats: CopyStats & { filesSince: number } }>();
  /** Destination: the copy running, by subdomain. */
  private readonly copies = new Map<string, { moveId: string; phase: string; abort: AbortController; done: Promise<void> }>();
  private readonly copier: RealmCopier;

  constructor(private readonly node: NodeContext) {
    this.copier = new RealmCopier(node);
  }

  /** Whether this node holds the organization paused for a move (as its source). */
  pausing(subdomain: string): boolean {
    return this.pausedHere.has(subdomain);
  }

  /** Whether the dump may be read here now: tracked for the warm copy, or paused for the last. */
  mayDump(subdomain: string, move: MoveRecord, session: string | null): boolean {
    if (move.state === 'warm') return session !== null && this.sessions.get(subdomain)?.session === session && move.session === session;
    return move.state === 'copy' && this.pausedHere.get(subdomain) === move.id;
  }

  async reconcile(): Promise<void> {
    const { node } = this;
    for (const [subdomain, move] of node.moves) {
      if (move.value.from === node.id) await this.asSource(subdomain, move.value, move.mod);
      if (move.value.to === node.id) this.asDestination(subdomain, move.value);
    }
    await this.sourceLooseEnds();
    // Destination: copies of moves that are gone or changed stop (and clean up after them).
    for (const [subdomain, copy] of this.copies) {
      const move = node.moves.get(subdomain)?.value;
      if (!(move?.id === copy.moveId && move.to === node.id && move.state !== 'done')) copy.abort.abort();
    }
    // Arrivals: finished if this node owns them now, dropped if no move brings them any more.
    for (const entry of node.directory.list()) {
      if (entry.held !== 'arriving' || this.copies.has(entry.subdomain)) continue;
      const move = node.moves.get(entry.subdomain)?.value;
      if (node.owns(entry.subdomain)) await this.copier.finishArrival(entry);
      else if (!(move?.to === node.id && move.state !== 'done')) await this.copier.dropArrival(entry);
    }
  }

  private async asSource(subdomain: string, move: MoveRecord, mod: string): Promise<void> {
    const { node } = this;
    if (move.state === 'done') return;
    const entry = node.directory.get(subdomain);
    if (!entry || entry.held || !node.owns(subdomain)) return;
    const mine = this.sessions.get(subdomain);
    if (move.state === 'warm') {
      if (mine?.moveId === move.id && mine.session === move.session) return;
      // A new tracker (first time, or this node restarted and lost its own): the record says
      // which, and the destination starts its warm copy over.
      const session = `${move.id}.${randomBytes(4).toString('hex')}`;
      await node.pool.admin(entry.shard, { kind: 'admin', op: 'realmTrack', realmId: entry.id, session });
      this.sessions.set(subdomain, { moveId: move.id, session });
      await casJson(node.client, KEYS.move(subdomain), mod, { ...move, session } satisfies MoveRecord);
      return;
    }
    if (this.pausedHere.get(subdomain) !== move.id) {
      await node.pool.admin(entry.shard, { kind: 'admin', op: 'realmPause', realmId: entry.id });
      this.pausedHere.set(subdomain, move.id);
      log.warn({ realm: subdomain, to: move.to }, 'cluster: organization paused for a move');
    }
    if (move.state === 'pause') await casJson(node.client, KEYS.move(subdomain), mod, { ...move, state: 'copy', paused: Date.now() } satisfies MoveRecord);
  }

  /**
   * Source: a pause or a tracker whose move is gone (undone) ends. A pause whose move is done
   * stays until the placement, changed in the same transaction, has let the organization go.
   */
  private async sourceLooseEnds(): Promise<void> {
    const { node } = this;
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
    for (const [subdomain, { moveId }] of this.sessions) {
      const move = node.moves.get(subdomain)?.value;
      if (move?.id === moveId && move.state !== 'done') continue;
      this.sessions.delete(subdomain);
      const entry = node.directory.get(subdomain);
      if (entry) await node.pool.admin(entry.shard, { kind: 'admin', op: 'realmUntrack', realmId: entry.id });
    }
  }

  private asDestination(subdomain: string, move: MoveRecord): void {
    const running = this.copies.get(subdomain);
    const warm = this.warmed.get(subdomain);
    if (move.state === 'warm') {
      if (!move.session || (warm?.moveId === move.id && warm.session === move.session)) return;
      if (running?.moveId === move.id && running.phase === `warm ${move.session}`) return;
      running?.abort.abort();
      this.run(subdomain, move, `warm ${move.session}`, (signal) => this.warm(subdomain, move, signal));
    } else if (move.state === 'copy') {
      if (running?.moveId === move.id && running.phase === 'final') return;
      running?.abort.abort();
      this.run(subdomain, move, 'final', (signal) => this.final(subdomain, move, signal));
    }
  }

  /** Runs a copy phase, tried again until it succeeds or its move changes. */
  private run(subdomain: string, move: MoveRecord, phase: string, body: (signal: AbortSignal) => Promise<boolean>): void {
    const abort = new AbortController();
    const previous = this.copies.get(subdomain)?.done ?? Promise.resolve();
    const done = (async () => {
      await previous;
      for (let attempt = 0; !abort.signal.aborted; attempt++) {
        try {
          if (await body(abort.signal)) return;
        } catch (err) {
          if (abort.signal.aborted) break;
          log.warn({ err: (err as Error).message, realm: subdomain, phase, attempt }, 'cluster: move copy failed; trying again');
          await this.note(subdomain, move.id, { error: (err as Error).message }).catch(() => undefined);
        }
        await sleep(Math.min(5_000, 250 * 2 ** attempt), undefined, { signal: abort.signal }).catch(() => undefined);
      }
    })()
      .catch((err) => log.error({ err, realm: subdomain }, 'cluster: move failed'))
      .finally(() => {
        if (this.copies.get(subdomain)?.abort === abort) this.copies.delete(subdomain);
        void this.node.reconcile().catch(() => undefined);
      });
    this.copies.set(subdomain, { moveId: move.id, phase, abort, done });
  }

  /** The warm copy; then the record asks the source for the pause. */
  private async warm(subdomain: string, move: MoveRecord, signal: AbortSignal): Promise<boolean> {
    const stats = await this.copier.whole(subdomain, move, signal);
    this.warmed.set(subdomain, { moveId: move.id, session: move.session!, stats });
    const current = await getJson<MoveRecord>(this.node.client, KEYS.move(subdomain));
    if (current?.value.id !== move.id || current.value.state !== 'warm' || current.value.session !== move.session) return true;
    await casJson(this.node.client, KEYS.move(subdomain), current.mod, { ...current.value, state: 'pause', warmRows: stats.rows } satisfies MoveRecord);
    return true;
  }

  /** The last copy, with the source paused, and the switch. */
  private async final(subdomain: string, move: MoveRecord, signal: AbortSignal): Promise<boolean> {
    const warm = this.warmed.get(subdomain);
    let stats: CopyStats;
    try {
      if (!(warm?.moveId === move.id && warm.session === move.session)) throw new DeltaRefused('no warm copy of this session here');
      const delta = await this.copier.delta(subdomain, move, warm.stats.filesSince, signal);
      stats = { rows: warm.stats.rows + delta.rows, files: warm.stats.files + delta.files, bytes: warm.stats.bytes + delta.bytes };
    } catch (err) {
      if (!(err instanceof DeltaRefused)) throw err;
      log.warn({ realm: subdomain, why: err.message }, 'cluster: copying the whole organization while it is paused');
      this.warmed.delete(subdomain);
      stats = await this.copier.whole(subdomain, move, signal);
    }
    await this.copier.attach(subdomain);
    return this.switchOver(subdomain, move, stats, signal);
  }

  /**
   * The switch: one etcd transaction that gives the placement to this node and ends the move,
   * if neither changed since read. Retried while etcd is unreachable. False if the move changed
   * under us (undone): the copy is dropped by reconcile.
   */
  private async switchOver(subdomain: string, move: MoveRecord, stats: CopyStats, signal: AbortSignal): Promise<boolean> {
    const { node } = this;
    // Above the realm's newest id, which came from the source's block (ids.ts).
    await node.ids!.fresh();
    for (let attempt = 0; !signal.aborted; attempt++) {
      try {
        const [current, placement] = await Promise.all([getJson<MoveRecord>(node.client, KEYS.move(subdomain)), getJson<Placement>(node.client, KEYS.realm(subdomain))]);
        if (!current || !placement || current.value.id !== move.id) return true;
        if (current.value.state === 'done') {
          if (placement.value.node === node.id) await this.served(subdomain);
          return true;
        }
        if (current.value.state !== 'copy' || placement.value.node !== move.from) return true;
        const done: MoveRecord = { ...current.value, state: 'done', switched: Date.now(), ...stats, error: undefined };
        const owned: Placement = { ...placement.value, node: node.id };
        const res = await node.client
          .if(KEYS.move(subdomain), 'Mod', '==', current.mod)
          .and(KEYS.realm(subdomain), 'Mod', '==', placement.mod)
          .then(node.client.put(KEYS.realm(subdomain)).value(JSON.stringify(owned)), node.client.put(KEYS.move(subdomain)).value(JSON.stringify(done)))
          .commit();
        if (!res.succeeded) continue;
        // Serve at once, without waiting for our own watch to bring the change back.
        node.placements.set(subdomain, { value: owned, mod: res.header.revision });
        node.moves.set(subdomain, { value: done, mod: res.header.revision });
        this.warmed.delete(subdomain);
        await this.served(subdomain);
        return true;
      } catch (err) {
        log.warn({ err: (err as Error).message, realm: subdomain }, 'cluster: switch not recorded yet (etcd unreachable?); trying again');
        await sleep(Math.min(2_000, 100 * 2 ** attempt), undefined, { signal }).catch(() => undefined);
      }
    }
    return true;
  }

  private async served(subdomain: string): Promise<void> {
    const entry = this.node.directory.get(subdomain);
    if (entry?.held === 'arriving') await this.copier.finishArrival(entry);
    await this.note(subdomain, this.node.moves.get(subdomain)?.value.id ?? '', { served: Date.now() }).catch(() => undefined);
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
