import type { Etcd3 } from 'etcd3';
import { log } from '../lib/log.js';
import type { MessageIds } from '../store/message-ids.js';
import { KEYS, takeRange } from './etcd.js';

/**
 * Message ids across a cluster. Clients assume a realm's ids increase with time, and a realm
 * moves between nodes with its messages, so ids must be unique across the nodes and keep
 * increasing on the node a realm moves to. A send must not cost an etcd round trip.
 *
 * So ids come in blocks: `/stoa/seq/message` is the top of the last block handed out, and a node
 * takes the next block (lo, lo + size] by compare-and-set, above every block before it. The
 * shards take ids from the block in shared memory as a single server does (store/message-ids.ts:
 * an atomic add, no I/O). A node takes a new block
 *
 *   - when it starts (above every id its stores hold too: `floor`),
 *   - when half its block is used (in the background: a send never waits for etcd),
 *   - before it takes over a moved realm: the realm's newest id came from the old node's block,
 *     which may lie above this node's; the fresh block lies above both.
 *
 * The rest of a block left behind is skipped, never reused: ids are plentiful (2^53).
 */
export class IdBlocks {
  private timer: NodeJS.Timeout | null = null;
  private taking: Promise<void> | null = null;
  private size = 0;

  constructor(
    private readonly client: Etcd3,
    private readonly ids: MessageIds,
    private readonly blockSize: number,
  ) {}

  /**
   * Takes a block above every id handed out here and in etcd, and installs it. A block being
   * taken already may have been granted before some other node's: it is waited for, not reused.
   */
  async fresh(): Promise<void> {
    await this.taking?.catch(() => undefined);
    await this.take();
  }

  private take(): Promise<void> {
    const taking: Promise<void> = (async () => {
      const [lo, hi] = await takeRange(this.client, KEYS.messageSeq, this.blockSize, this.ids.current());
      this.ids.install(lo, hi);
      this.size = hi - lo;
      log.info({ lo, hi }, 'cluster: message id block');
    })().finally(() => {
      if (this.taking === taking) this.taking = null;
    });
    this.taking = taking;
    return taking;
  }

  /** Watches the block and takes the next one once half of it is used. */
  start(everyMs = 500): void {
    this.timer = setInterval(() => {
      if (this.taking || this.ids.remaining() > this.size / 2) return;
      this.take().catch((err) => log.warn({ err }, 'cluster: could not take a message id block (etcd unreachable?); sends go on from the current one'));
    }, everyMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}

/**
 * For a tool that writes a node's stores while the node is stopped (`stoa seed`): a block of its
 * own, so its messages too have ids no other node hands out.
 */
export async function toolBlock(etcd: string[], ids: MessageIds, size = 10_000_000): Promise<void> {
  const { connect } = await import('./etcd.js');
  const client = connect(etcd);
  try {
    const [lo, hi] = await takeRange(client, KEYS.messageSeq, size, ids.current());
    ids.install(lo, hi);
  } finally {
    client.close();
  }
}
