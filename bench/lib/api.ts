import { Pool, type Dispatcher } from 'undici';

/** One user's credentials, as a zuliprc or `stoa seed` gives them. */
export interface Creds {
  email: string;
  apiKey: string;
}

export interface ApiReply {
  status: number;
  body: any;
  /** performance.now() when the whole body had arrived, before it was parsed. */
  receivedAt: number;
}

const authorizations = new WeakMap<Creds, string>();

/** The Authorization header of these credentials, encoded once, as a client does at login. */
export function basicAuth(creds: Creds): string {
  let value = authorizations.get(creds);
  if (value === undefined) authorizations.set(creds, (value = `Basic ${Buffer.from(`${creds.email}:${creds.apiKey}`).toString('base64')}`));
  return value;
}

/**
 * Cancels one client's request in flight, as an AbortSignal does, without a listener added to
 * and taken from an EventTarget at every request (a long-poller makes hundreds a second).
 */
export class Cancel {
  reason: unknown = undefined;
  /** The request in flight's (exchange sets it). */
  abort: ((reason: unknown) => void) | null = null;

  fire(reason: unknown = new Error('cancelled')): void {
    this.reason = reason;
    this.abort?.(reason);
  }
}

/**
 * One HTTP/1.1 request and its whole answer, on a keep-alive pool: the status and the body as
 * text. What undici's `request` does, less the stream it wraps the body in (a Readable and its
 * events per answer, then read whole anyway), which cost the bench's pollers more CPU than
 * anything but their JSON parse. The peer's BOSH clients keep `request` (bench/README.md says
 * why).
 */
export function exchange(pool: Dispatcher, options: Dispatcher.DispatchOptions & { signal?: AbortSignal | Cancel }): Promise<{ status: number; text: string }> {
  const { signal, ...dispatch } = options;
  return new Promise((resolve, reject) => {
    const cancel = signal instanceof Cancel ? signal : null;
    const abortSignal = signal instanceof Cancel ? null : signal;
    const aborted = cancel ? cancel.reason : abortSignal?.aborted ? abortSignal.reason : undefined;
    if (aborted !== undefined) return reject(aborted);
    let status = 0;
    const chunks: Buffer[] = [];
    let abort: ((reason: unknown) => void) | null = null;
    const onAbort = () => abort?.(abortSignal!.reason);
    abortSignal?.addEventListener('abort', onAbort, { once: true });
    const done = () => {
      if (cancel) cancel.abort = null;
      abortSignal?.removeEventListener('abort', onAbort);
    };
    pool.dispatch(dispatch, {
      onConnect: (fn: (reason: unknown) => void) => {
        abort = fn;
        if (cancel) {
          if (cancel.reason !== undefined) fn(cancel.reason);
          else cancel.abort = fn;
        }
      },
      onHeaders: (code: number) => {
        status = code;
        return true;
      },
      onData: (chunk: Buffer) => {
        chunks.push(chunk);
        return true;
      },
      onComplete: () => {
        done();
        resolve({ status, text: chunks.length === 1 ? chunks[0].toString() : Buffer.concat(chunks).toString() });
      },
      onError: (err: Error) => {
        done();
        reject(err);
      },
    } as Dispatcher.DispatchHandler);
  });
}

/** Form values as the Python bindings send them: strings as they are, the rest as JSON. */
export function form(params: Record<string, unknown>): string {
  const pairs: [string, string][] = [];
  for (const [k, v] of Object.entries(params)) if (v !== undefined) pairs.push([k, typeof v === 'string' ? v : JSON.stringify(v)]);
  return new URLSearchParams(pairs).toString();
}

/**
 * A Zulip API client over one undici pool: keep-alive connections, as real clients hold them.
 * `connections` bounds the sockets; parked long-polls each hold one, so a pool that parks
 * thousands needs that many.
 */
export class Api {
  readonly pool: Pool;

  constructor(
    readonly url: string,
    connections = 64,
    /** A Host other than the URL's: one organization of a server that holds many. */
    private readonly defaults: { host?: string } = {},
  ) {
    this.pool = new Pool(url, { connections, pipelining: 1, headersTimeout: 0, bodyTimeout: 0, keepAliveTimeout: 60_000 });
  }

  async call(creds: Creds | null, method: string, path: string, params: Record<string, unknown> = {}, signal?: AbortSignal | Cancel): Promise<ApiReply> {
    const headers: Record<string, string> = {};
    if (this.defaults.host) headers.host = this.defaults.host;
    if (creds) headers.authorization = basicAuth(creds);
    const encoded = form(params);
    let fullPath = `/api/v1${path}`;
    let body: string | undefined;
    if (method === 'GET' || method === 'DELETE') {
      if (encoded) fullPath += `?${encoded}`;
    } else {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = encoded;
    }
    const res = await exchange(this.pool, { method: method as 'GET', path: fullPath, headers, body, signal });
    const text = res.text;
    const receivedAt = performance.now();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = { result: 'error', msg: text.slice(0, 200) };
    }
    return { status: res.status, body: parsed, receivedAt };
  }

  /** The call, or an Error carrying the server's answer. */
  async ok(creds: Creds | null, method: string, path: string, params: Record<string, unknown> = {}): Promise<any> {
    const reply = await this.call(creds, method, path, params);
    if (reply.status !== 200) throw new Error(`${method} ${path}: ${reply.status} ${JSON.stringify(reply.body).slice(0, 300)}`);
    return reply.body;
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}

/**
 * A long-polling client as the real ones behave: register once, then GET /events forever,
 * acknowledging with last_event_id; on BAD_EVENT_QUEUE_ID, register again.
 */
export class Poller {
  private readonly cancel = new Cancel();
  private queueId = '';
  private lastEventId = -1;
  polls = 0;
  errors = 0;
  done: Promise<void> = Promise.resolve();

  constructor(
    private readonly api: Api,
    private readonly creds: Creds,
    private readonly registerParams: Record<string, unknown>,
    private readonly onEvent: (event: any, at: number) => void = () => {},
  ) {}

  async register(): Promise<void> {
    const reg = await this.api.ok(this.creds, 'POST', '/register', this.registerParams);
    this.queueId = reg.queue_id;
    this.lastEventId = reg.last_event_id;
  }

  start(): void {
    this.done = this.loop();
  }

  private async loop(): Promise<void> {
    while (this.cancel.reason === undefined) {
      try {
        const reply = await this.api.call(this.creds, 'GET', '/events', { queue_id: this.queueId, last_event_id: this.lastEventId }, this.cancel);
        this.polls++;
        if (reply.status === 200) {
          const at = performance.now();
          for (const event of reply.body.events) {
            this.lastEventId = Math.max(this.lastEventId, event.id);
            this.onEvent(event, at);
          }
        } else if (reply.body?.code === 'BAD_EVENT_QUEUE_ID') {
          await this.register();
        } else {
          this.errors++;
        }
      } catch (err) {
        if (this.cancel.reason !== undefined) return;
        this.errors++;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }

  /** Stops polling and deletes the queue, as a client that exits cleanly does. */
  async stop(): Promise<void> {
    this.cancel.fire(new Error('the poller stopped'));
    await this.done;
    // An abandoned queue keeps every event it is sent until it expires (ten minutes): left
    // behind, the 50 queues of one scenario would weigh on the next.
    if (this.queueId) await this.api.call(this.creds, 'DELETE', '/events', { queue_id: this.queueId }).catch(() => undefined);
  }
}
