import { MessageChannel, type MessagePort } from 'node:worker_threads';

/**
 * The channel between the front end and one shard thread, in batches.
 *
 * Piscina posts one message per task each way, and a cross-thread message is dear: the sender
 * clones it and wakes the other thread's event loop (a system call), the receiver gets a callback
 * and an event object per message. A delivered message event is exactly that many tasks at once:
 * one commit wakes the 50 parked polls of a channel's subscribers, and their 50 next polls arrive
 * together. Profiles of that (bench P1/P2) showed postMessage as the largest single cost on both
 * threads. So each side queues what it sends and posts it as one array: the front end what it
 * sent during one turn of its event loop, from the check phase (setImmediate), after the poll
 * phase has handled every socket that was ready; the shard what one task of its loop made (a
 * port message's tasks, an lmdb completion's commits), once that task's microtasks have run:
 *
 *   front end                                   shard thread
 *   requests of one turn ── [[n, task], ...] ──> each task runs as it comes
 *   replies resolve      <── [[n, ok, value]] ── replies and notes one task made
 *
 * `n` numbers the tasks whose answer is awaited (a number is given again once its task has been
 * answered: each is answered once); 0 is a task nobody waits for (a cancel). The
 * piscina pool still owns the thread (start, and replacement after a crash); it carries only the
 * task that hands the thread its end of the channel. Tasks keep their order: one port, FIFO.
 *
 * The shard does not wait for its check phase: a poll phase of the shard can hold many sends to
 * render and lmdb completions, and a delivery posted behind all of them was the tail of P2's
 * commit-to-desk step; a send's answer waiting there held back the sender's next message in a
 * closed loop (P1). A send is answered only once its commit has settled (its handler awaits
 * it), so posting sooner never answers before the commit; its deliveries, queued when the commit
 * settled, go ahead of it in the same post.
 */
export type Down = [n: number, task: unknown];
export type Up = [n: number, ok: boolean, value: unknown];
interface Waiter {
  resolve(value: unknown): void;
  reject(err: unknown): void;
  sync?: (value: unknown) => void;
}

interface ListTask {
  kind: string;
  list: unknown[];
}

const isList = (task: unknown): task is ListTask => typeof task === 'object' && task !== null && Array.isArray((task as ListTask).list) && typeof (task as ListTask).kind === 'string';

/** The longest a task sent `later` waits for a post (ShardLink.notify). */
const LATER_MS = 10;

/** The front end's side: one per shard. */
export class ShardLink {
  private port: MessagePort | null = null;
  private connecting: Promise<void> | null = null;
  /**
   * The calls awaiting an answer, each at the place its number names; the numbers of answered
   * places are given again. Not a Map: an old Map with a set and a delete per call keeps every
   * entry that passed through it (the resolvers, the promise, the awaiting handler's frame)
   * alive until a full collection, since a rehash leaves its old table linked to the new one;
   * an array's place that is emptied holds nothing.
   */
  private readonly waiting: (Waiter | undefined)[] = [undefined];
  private readonly free: number[] = [];
  private outbox: Down[] = [];
  private scheduled = false;
  /** A timer is set for tasks sent `later` (notify). */
  private laterSet = false;
  private closed = false;
  /** The shard's own notes (numbered 0), and `{kind: 'reset'}` when its thread has ended. */
  onNote: (note: unknown) => void = () => {};

  /** `connect` gives the shard thread the other end of a new channel (a piscina task). */
  constructor(private readonly connect: (port: MessagePort) => Promise<unknown>) {}

  /**
   * Runs a task in the shard; resolves with its result. `sync` sees the result as it arrives,
   * before the shard's next notes are read (a promise would see it after them).
   */
  call<T>(task: unknown, sync?: (value: T) => void): Promise<T> {
    const n = this.free.pop() ?? this.waiting.length;
    return new Promise<T>((resolve, reject) => {
      this.waiting[n] = { resolve: resolve as (value: unknown) => void, reject, sync: sync as ((value: unknown) => void) | undefined };
      this.send([n, task]);
    });
  }

  /**
   * A task whose answer nobody waits for. A task that is a `list` (desk-wire.ts `desks`) joins
   * one of its kind queued just before it, so the polls a turn answers at the desks cross as one
   * array, one object to clone and one task to run on the shard; anything queued between them
   * keeps them apart, and so the order.
   *
   * `later`: bookkeeping that no answer waits on (the desks' polls: acknowledgements, parked or
   * not). It goes with the next task that must go now, in its place in the order, or after
   * LATER_MS at the most: a post costs both threads (the clone, a system call to wake the shard,
   * a turn of its loop), and under load polls arrive in most turns of the main thread between
   * two sends, each turn a post of its own for one or two polls.
   */
  notify(task: unknown, later = false): void {
    const last = this.outbox.length > 0 ? this.outbox[this.outbox.length - 1] : undefined;
    if (last && last[0] === 0 && isList(task) && isList(last[1]) && last[1].kind === task.kind) {
      const into = last[1].list;
      for (const item of task.list) into.push(item);
      return;
    }
    this.send([0, task], later);
  }

  private send(item: Down, later = false): void {
    if (this.closed) {
      if (item[0] > 0) this.settle([item[0], false, new Error('the shard pool is closed')]);
      return;
    }
    this.outbox.push(item);
    if (this.scheduled) return;
    if (later) {
      // One timer at a time: one set before a post that took its tasks fires early, which only
      // shortens the wait.
      if (!this.laterSet) {
        this.laterSet = true;
        setTimeout(this.flushLater, LATER_MS);
      }
      return;
    }
    this.scheduled = true;
    setImmediate(() => void this.flush());
  }

  private readonly flushLater = (): void => {
    this.laterSet = false;
    if (this.closed || this.scheduled || this.outbox.length === 0) return;
    this.scheduled = true;
    void this.flush();
  };

  private async flush(): Promise<void> {
    if (!this.port) {
      try {
        await (this.connecting ??= this.open());
      } catch (err) {
        // The thread could not start (a damaged store): every task waiting fails with the cause.
        this.connecting = null;
        this.scheduled = false;
        const items = this.outbox;
        this.outbox = [];
        for (const [n] of items) if (n > 0) this.settle([n, false, err]);
        return;
      }
    }
    this.scheduled = false;
    const items = this.outbox;
    this.outbox = [];
    if (items.length > 0) this.port!.postMessage(items);
  }

  private async open(): Promise<void> {
    const { port1, port2 } = new MessageChannel();
    port1.on('message', (replies: Up[]) => {
      for (const reply of replies) {
        if (reply[0] === 0) this.onNote(reply[2]);
        else this.settle(reply);
      }
    });
    // The thread ended (a crash; piscina starts another): what it was running is lost, as with
    // piscina's own tasks. The next task opens a channel to the new thread.
    port1.once('close', () => {
      if (this.port === port1) this.port = null;
      this.connecting = null;
      this.onNote({ kind: 'reset' });
      for (let n = 1; n < this.waiting.length; n++) this.settle([n, false, new Error('the shard thread ended')]);
    });
    await this.connect(port2);
    this.port = port1;
  }

  private settle([n, ok, value]: Up): void {
    const w = this.waiting[n];
    if (!w) return;
    this.waiting[n] = undefined;
    this.free.push(n);
    if (ok) {
      w.sync?.(value);
      w.resolve(value);
    } else w.reject(value);
  }

  /** After the pool's threads have stopped. */
  close(): void {
    this.closed = true;
    this.port?.close();
    this.port = null;
  }
}

/**
 * The shard thread's side: runs each task with `handle`, and answers in batches. Returns the
 * way to send the front end a note of the shard's own (numbered 0), in order with the answers.
 */
export function serveLink(port: MessagePort, handle: (task: never) => Promise<unknown>): (note: unknown) => void {
  let outbox: Up[] = [];
  let soon = false;
  const flush = () => {
    soon = false;
    if (outbox.length === 0) return;
    const replies = outbox;
    outbox = [];
    try {
      port.postMessage(replies);
    } catch {
      // A value that cannot be cloned (an error carrying a function) must not sink its batch.
      for (const reply of replies) {
        try {
          port.postMessage([reply]);
        } catch (err) {
          port.postMessage([[reply[0], false, new Error(`the shard's answer could not be sent: ${(err as Error).message}`)]]);
        }
      }
    }
  };
  // Answers and notes go once the task (the callback of a port message, a timer, an lmdb
  // completion) that made them has run all its microtasks: a nextTick queued from a microtask
  // runs when the microtask queue is empty. A commit's deliveries (desk-wire.ts) and its send's
  // answer, made in the same checkpoint, share one post, as do the commits lmdb-js settles
  // together; neither waits for the rest of the turn (every send and lmdb completion of the same
  // poll phase).
  const queue = (reply: Up) => {
    outbox.push(reply);
    if (soon) return;
    soon = true;
    queueMicrotask(() => process.nextTick(flush));
  };
  const note = (value: unknown) => queue([0, true, value]);
  port.on('message', (items: Down[]) => {
    for (const [n, task] of items) {
      const done = handle(task as never);
      if (n > 0) done.then((value) => queue([n, true, value]), (err: unknown) => queue([n, false, err]));
      else done.catch(() => undefined);
    }
  });
  return note;
}
