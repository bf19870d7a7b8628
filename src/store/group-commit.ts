import type { RootDatabase } from 'lmdb';

/**
 * The commits of one task of a shard's loop (a port message's sends, a timer's jobs), written in
 * one LMDB transaction on the shard's own thread once the task has run its microtasks.
 *
 * lmdb-js's async `transaction(callback)` hands a commit to its write thread, which calls the
 * callback back on the shard thread (when that thread is free), commits, syncs, and hands the
 * result back (when the shard thread is free again): three waits for a thread, which P2's probe
 * (poll3, bench/RESULTS.md) found to be most of a send's wait for its commit and much of its tail.
 * `transactionSync` writes, commits and syncs on the calling thread: with the environment's
 * `overlappingSync` (lmdb-js's default here) a transaction begun without `MDB_NOSYNC`, as
 * transactionSync's begins, is committed by fdatasync of its pages and its meta page written
 * through the O_DSYNC descriptor before it returns (strace: sync session, bench/RESULTS.md), the
 * same as the async commit has done when it resolves. So an action that has seen its commit
 * resolve may still answer: its rows are on disk.
 *
 * The shard thread waits for that sync instead of another thread; grouping a task's commits pays
 * it once for all of them. A group that fails (a full disk, a value that cannot be encoded) is
 * written again one commit per transaction, so that each fails or commits on its own.
 */
export class GroupCommit {
  private queued: { write: () => void; done: (err?: unknown) => void }[] = [];
  private scheduled = false;

  constructor(private readonly env: RootDatabase) {}

  /** Resolves once `write`'s puts are committed and synced; rejects if their transaction failed. */
  commit(write: () => void): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queued.push({ write, done: (err) => (err === undefined ? resolve() : reject(err)) });
      if (this.scheduled) return;
      this.scheduled = true;
      // A nextTick queued from a microtask runs once the microtask queue is empty: every commit
      // the task's actions reach without waiting on anything else is in the group.
      queueMicrotask(() => process.nextTick(() => this.flush()));
    });
  }

  /**
   * Writes the commits queued so far now, not at the task's end: a store about to close
   * (Shard.close) would otherwise refuse them. The flush still scheduled then finds none.
   */
  flush(): void {
    this.scheduled = false;
    const group = this.queued;
    if (group.length === 0) return;
    this.queued = [];
    if (group.length > 1) {
      let ok = false;
      try {
        this.env.transactionSync(() => {
          for (const { write } of group) write();
        });
        ok = true;
      } catch {
        // Aborted as a whole: each commit again on its own, below.
      }
      if (ok) {
        for (const { done } of group) done();
        return;
      }
    }
    for (const { write, done } of group) {
      try {
        this.env.transactionSync(write);
      } catch (err) {
        done(err ?? new Error('transaction failed'));
        continue;
      }
      done();
    }
  }
}

const groups = new WeakMap<RootDatabase, GroupCommit>();

/** The environment's group commit (one per environment: one shard thread writes it). */
export function groupCommit(env: RootDatabase): GroupCommit {
  let group = groups.get(env);
  if (!group) groups.set(env, (group = new GroupCommit(env)));
  return group;
}
