import { call } from './harness.js';

/**
 * Clients of one organization that keep going while it moves: they talk to the proxy by Host,
 * wait out 503s as Retry-After says (capped, to keep the test short), and register again on
 * BAD_EVENT_QUEUE_ID, as the Zulip clients do. They record what the server acknowledged, so a
 * test can check that nothing acknowledged was lost or doubled.
 */
export interface Creds {
  email: string;
  apiKey: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const retryDelay = (headers: Record<string, unknown>) => Math.min(250, 1000 * Number(headers['retry-after'] ?? 1));

export class Sender {
  /** content -> the id the server acknowledged. */
  readonly acked = new Map<string, number>();
  /** Sends whose outcome is unknown (the connection failed): each may be stored at most once. */
  readonly unknown = new Set<string>();
  /** Answers 503 seen, and the longest stretch from a first refusal to the next success (ms). */
  refusals = 0;
  longestPause = 0;
  private running = true;
  private done: Promise<void> = Promise.resolve();

  constructor(
    private readonly port: number,
    private readonly host: string,
    private readonly creds: Creds,
    private readonly channel: string,
    readonly name: string,
    private readonly everyMs = 0,
  ) {}

  start(): this {
    this.done = this.loop();
    return this;
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.done;
  }

  private async loop(): Promise<void> {
    for (let n = 0; this.running; n++) {
      const content = `${this.name}-${n}`;
      let refusedAt = 0;
      for (;;) {
        let answer;
        try {
          answer = await call(this.port, this.host, 'POST', '/api/v1/messages', { auth: this.creds, params: { type: 'stream', to: this.channel, topic: this.name, content }, timeoutMs: 60_000 });
        } catch {
          this.unknown.add(content);
          break;
        }
        if (answer.status === 200) {
          this.acked.set(content, answer.body.id);
          if (refusedAt) this.longestPause = Math.max(this.longestPause, Date.now() - refusedAt);
          break;
        }
        if (answer.status === 503) {
          this.refusals++;
          refusedAt ||= Date.now();
          await sleep(retryDelay(answer.headers));
          continue;
        }
        // A proxy error: whether the node stored it is not known.
        if (answer.status >= 500) {
          this.unknown.add(content);
          break;
        }
        throw new Error(`${this.name}: send answered ${answer.status} ${answer.raw.toString().slice(0, 300)}`);
      }
      if (this.everyMs) await sleep(this.everyMs);
    }
  }
}

/** Registers for message events and polls; on BAD_EVENT_QUEUE_ID registers again and fetches what it missed. */
export class Poller {
  /** Message ids seen, by event or by the catch-up fetch. */
  readonly seen = new Set<number>();
  /** The same message delivered twice to one queue (a doubled event). */
  doubled = 0;
  registrations = 0;
  badQueue = 0;
  /** Why the loop stopped, if it stopped on its own (an answer it does not expect). */
  failure: string | null = null;
  private running = true;
  private done: Promise<void> = Promise.resolve();
  /** Ends a parked poll at once when the client stops. */
  private readonly abort = new AbortController();

  constructor(
    private readonly port: number,
    private readonly host: string,
    private readonly creds: Creds,
    private readonly channel: string,
  ) {}

  start(): this {
    this.done = this.loop();
    this.done.catch((err) => {
      if (!this.abort.signal.aborted) this.failure = err instanceof Error ? err.message : String(err);
    });
    return this;
  }

  async stop(): Promise<void> {
    this.running = false;
    this.abort.abort();
    await this.done.catch((err) => {
      if (!this.abort.signal.aborted) throw err;
    });
  }

  private async request(method: string, path: string, params: Record<string, unknown>, timeoutMs = 120_000) {
    for (;;) {
      let answer;
      try {
        answer = await call(this.port, this.host, method, path, { auth: this.creds, params, timeoutMs, signal: this.abort.signal });
      } catch (err) {
        if (this.abort.signal.aborted) throw err;
        await sleep(100);
        continue;
      }
      // A node that is not the owner (yet), or a proxy between two maps: try again.
      if (answer.status === 503 || answer.status === 502 || answer.status === 504) {
        await sleep(retryDelay(answer.headers));
        continue;
      }
      return answer;
    }
  }

  private async register(): Promise<{ queueId: string; lastEventId: number; delivered: Set<number> }> {
    const answer = await this.request('POST', '/api/v1/register', { event_types: ['message'], narrow: [['channel', this.channel]] });
    if (answer.status !== 200) throw new Error(`register answered ${answer.status} ${answer.raw}`);
    this.registrations++;
    await this.catchUp(answer.body.max_message_id);
    return { queueId: answer.body.queue_id, lastEventId: answer.body.last_event_id, delivered: new Set() };
  }

  /**
   * Everything in the channel up to `upTo` (the snapshot the queue starts after). From its start:
   * ids are taken before their transactions commit, so an event for a lower id can come after
   * a higher one, and the queue that would have brought it may have ended in between.
   */
  private async catchUp(upTo: number): Promise<void> {
    let anchor: number | string = 'oldest';
    for (;;) {
      const answer = await this.request('GET', '/api/v1/messages', { anchor, num_before: 0, num_after: 1000, narrow: [{ operator: 'channel', operand: this.channel }], apply_markdown: false, include_anchor: anchor === 'oldest' });
      const messages: { id: number }[] = answer.body.messages;
      for (const m of messages) if (m.id <= upTo) this.seen.add(m.id);
      if (answer.body.found_newest || messages.length === 0 || messages[messages.length - 1].id >= upTo) return;
      anchor = messages[messages.length - 1].id;
    }
  }

  private async loop(): Promise<void> {
    let queue = await this.register();
    while (this.running) {
      const answer = await this.request('GET', '/api/v1/events', { queue_id: queue.queueId, last_event_id: queue.lastEventId, dont_block: false }, 120_000);
      if (answer.status === 400 && answer.body?.code === 'BAD_EVENT_QUEUE_ID') {
        this.badQueue++;
        queue = await this.register();
        continue;
      }
      if (answer.status !== 200) throw new Error(`GET /events answered ${answer.status} ${answer.raw}`);
      const ids = queue.delivered;
      for (const event of answer.body.events as { id: number; type: string; message?: { id: number } }[]) {
        queue.lastEventId = Math.max(queue.lastEventId, event.id);
        if (event.type !== 'message') continue;
        if (ids.has(event.message!.id)) this.doubled++;
        ids.add(event.message!.id);
        this.seen.add(event.message!.id);
      }
    }
  }
}
