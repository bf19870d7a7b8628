import { realmUnavailable } from '../lib/errors.js';

/**
 * The realms of a shard whose writes are held, and the writes of each realm under way.
 *
 * A cluster moves an organization between nodes by copying its rows (src/cluster/moves.ts): while
 * they are copied nothing may change them. `pause` closes the realm to writes (requests that would
 * change something get `503` with Retry-After; durable jobs and mail wait) and resolves once the
 * writes already running have ended, their transactions committed. Reads, registers and
 * long-polls go on. A realm that arrives by a move is held the same way until its node owns it.
 *
 * A single server never pauses a realm; the cost there is a counter per write.
 */
export class RealmGate {
  private readonly paused = new Set<number>();
  private readonly running = new Map<number, number>();
  private readonly idle = new Map<number, (() => void)[]>();
  /** Writes per realm since the start: what `stoa cluster nodes` shows as load. */
  private readonly writes = new Map<number, number>();

  isPaused(realmId: number): boolean {
    return this.paused.has(realmId);
  }

  /** Throws the 503 of a paused realm, else counts a write of it until `leave`. */
  enter(realmId: number): void {
    if (this.paused.has(realmId)) throw realmUnavailable('moving');
    this.running.set(realmId, (this.running.get(realmId) ?? 0) + 1);
    this.writes.set(realmId, (this.writes.get(realmId) ?? 0) + 1);
  }

  writesOf(realmId: number): number {
    return this.writes.get(realmId) ?? 0;
  }

  leave(realmId: number): void {
    const n = (this.running.get(realmId) ?? 1) - 1;
    if (n > 0) return void this.running.set(realmId, n);
    this.running.delete(realmId);
    for (const wake of this.idle.get(realmId)?.splice(0) ?? []) wake();
    this.idle.delete(realmId);
  }

  /** Runs `write` counted as a write of the realm (refused while it is paused). */
  async around<T>(realmId: number, write: () => Promise<T>): Promise<T> {
    this.enter(realmId);
    try {
      return await write();
    } finally {
      this.leave(realmId);
    }
  }

  /** Closes the realm to writes; resolves once none of its writes is running. */
  async pause(realmId: number): Promise<void> {
    this.paused.add(realmId);
    if (!this.running.has(realmId)) return;
    await new Promise<void>((resolve) => {
      const list = this.idle.get(realmId) ?? [];
      list.push(resolve);
      this.idle.set(realmId, list);
    });
  }

  resume(realmId: number): void {
    this.paused.delete(realmId);
  }

  pausedRealms(): number[] {
    return [...this.paused];
  }
}

/** Operations that change nothing durable although not GETs: allowed while a realm is paused. */
const PASS_WHILE_PAUSED = new Set(['events.register', 'events.delete', 'typing.set', 'typing.editMessage', 'presence.update', 'messages.render', 'server.fetchApiKey']);

/** Whether a request may change the realm's stored state (an unknown method counts as a write). */
export function isWrite(method: string | undefined, op: string): boolean {
  if (method === 'GET' || method === 'HEAD') return false;
  return !PASS_WHILE_PAUSED.has(op);
}
