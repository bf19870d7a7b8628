import type { SubInterval } from '../model/realm-state.js';

/**
 * Per-user message state from the reference's UserMessage rows, in Stoa's sparse shape
 * (model/read-state.ts): who received a channel message becomes subscription intervals over the
 * channel's messages, and read state a watermark per user with flips for the exceptions.
 *
 * Each user's received messages are collected as `id * 2 + read` in a growable Int32Array (4
 * bytes a row), and resolved at the end, when the order of every message is known:
 * - intervals: runs of consecutive messages of a channel the user received;
 * - the watermark W minimising the flips (unread at or below W, read above it): one walk over
 *   the user's messages in id order, moving W past each read message while that lowers the
 *   count. A user who read everything gets W at their last message and no flip at all.
 */
class IntList {
  private data = new Int32Array(16);
  length = 0;

  push(v: number): void {
    if (this.length === this.data.length) {
      const next = new Int32Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = v;
  }

  sorted(): Int32Array {
    return this.data.subarray(0, this.length).sort();
  }
}

export interface UserReadState {
  mark: number;
  /** Messages whose read state is the opposite of what the mark says. */
  flips: number[];
  /** streamId -> intervals of received messages. */
  intervals: Map<number, SubInterval[]>;
}

export class ReadStateBuilder {
  private readonly received = new Map<number, IntList>();
  /** rank -> the channel of message base + rank + 1 (0 for direct messages). */
  private readonly streamOf: Int32Array;

  constructor(
    private readonly base: number,
    count: number,
  ) {
    this.streamOf = new Int32Array(count);
  }

  message(id: number, streamId: number | null): void {
    this.streamOf[id - this.base - 1] = streamId ?? 0;
  }

  row(userId: number, messageId: number, read: boolean): void {
    let list = this.received.get(userId);
    if (!list) this.received.set(userId, (list = new IntList()));
    list.push(messageId * 2 + (read ? 1 : 0));
  }

  /** The first message of each channel. */
  firstMessages(): Map<number, number> {
    const out = new Map<number, number>();
    this.streamOf.forEach((stream, rank) => {
      if (stream !== 0 && !out.has(stream)) out.set(stream, this.base + rank + 1);
    });
    return out;
  }

  /**
   * The state of each user with rows. The channels in `subscriptionsOf(user)` are subscribed
   * now: the last interval stays open, as a live subscription's does (a new one opens at
   * `nextId` when the user's last run ended before the channel's last message).
   */
  *users(subscriptionsOf: (userId: number) => Iterable<number>, nextId: number): Generator<[number, UserReadState]> {
    // The previous message of the same channel, for each message: runs are consecutive in it.
    const prev = new Int32Array(this.streamOf.length);
    const last = new Map<number, number>();
    this.streamOf.forEach((stream, rank) => {
      if (stream === 0) return;
      prev[rank] = last.get(stream) ?? 0;
      last.set(stream, this.base + rank + 1);
    });
    for (const [userId, list] of this.received) {
      const rows = list.sorted();
      let delta = 0;
      let best = 0;
      let mark = 0;
      const unread: number[] = [];
      let readAbove: number[] = [];
      const runs = new Map<number, SubInterval[]>();
      for (const v of rows) {
        const id = v >> 1;
        const read = (v & 1) === 1;
        if (read) {
          readAbove.push(id);
          if (--delta < best) {
            best = delta;
            mark = id;
            readAbove = [];
          }
        } else {
          unread.push(id);
          delta++;
        }
        const stream = this.streamOf[id - this.base - 1];
        if (stream !== 0) {
          let intervals = runs.get(stream);
          if (!intervals) runs.set(stream, (intervals = []));
          const run = intervals[intervals.length - 1];
          if (run && run[1] === prev[id - this.base - 1]) run[1] = id;
          else intervals.push([id, id]);
        }
      }
      const flips = [...unread.filter((id) => id <= mark), ...readAbove];
      for (const streamId of subscriptionsOf(userId)) {
        const intervals = runs.get(streamId) ?? [];
        const run = intervals[intervals.length - 1];
        if (run && run[1] === (last.get(streamId) ?? -1)) run[1] = null;
        else intervals.push([nextId, null]);
        runs.set(streamId, intervals);
      }
      yield [userId, { mark, flips, intervals: runs }];
    }
  }

  has(userId: number): boolean {
    return this.received.has(userId);
  }
}
