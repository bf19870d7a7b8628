import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream } from 'node:stream/web';

/**
 * Slack's Web API and file hosts, as the reference's Slack importer uses them with a token
 * (zerver/data_import/slack.py: users.list, emoji.list, team.info, api.test for the token's
 * scopes, and each file's url_private). The token goes in an Authorization header, and only to
 * Slack's own hosts over https (slack.com, files.slack.com): never to a redirect elsewhere, never
 * into a message, a log line or a file. URLs shown to people lose their query (an export's
 * url_private may carry a token of its own in `?t=`).
 */

/** What the reference asks of a bot token (SLACK_IMPORT_TOKEN_SCOPES), and files:read for the files. */
export const SLACK_TOKEN_SCOPES = ['emoji:read', 'files:read', 'team:read', 'users:read', 'users:read.email'];

export interface SlackClientOptions {
  token: string;
  /**
   * For tests only (STOA_TEST_SLACK_ORIGIN): every request meant for a Slack host goes to
   * `<origin>/<host><path>` instead, so a local server can play slack.com and files.slack.com.
   */
  testOrigin?: string;
  /** Attempts for a request answered 429 or 5xx, or cut off (the first included). */
  attempts?: number;
}

export class SlackRequestError extends Error {
  constructor(
    message: string,
    /** The HTTP status, when the server answered. */
    readonly status?: number,
  ) {
    super(message);
  }
}

const TOKEN_HOSTS = new Set(['slack.com', 'files.slack.com']);
/** A whole request, body included: an API answer, and a file of up to the upload limit on a slow link. */
const API_TIMEOUT_MS = 120_000;
const DOWNLOAD_TIMEOUT_MS = 900_000;

/** A URL as it may be shown: no query, no credentials. */
export function shownUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return '(not a URL)';
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class SlackClient {
  private readonly token: string;
  private readonly testOrigin?: string;
  private readonly attempts: number;

  constructor(opts: SlackClientOptions) {
    this.token = opts.token;
    this.testOrigin = opts.testOrigin?.replace(/\/+$/, '');
    this.attempts = opts.attempts ?? 3;
  }

  /** Whether the token may go with a request to this URL. */
  private static carriesToken(url: URL): boolean {
    return url.protocol === 'https:' && TOKEN_HOSTS.has(url.hostname);
  }

  private target(url: URL): string {
    return this.testOrigin ? `${this.testOrigin}/${url.host}${url.pathname}${url.search}` : url.href;
  }

  /**
   * One GET, following redirects by hand so that the token is sent to Slack's hosts only;
   * retried on 429 (after Retry-After, as the reference waits) and on 5xx or a broken connection.
   */
  private async get(raw: string, accept: string, withToken: boolean, timeout: number): Promise<Response> {
    let url = new URL(raw);
    for (let attempt = 1; ; attempt++) {
      let res: Response;
      try {
        for (let hops = 0; ; hops++) {
          const headers: Record<string, string> = { accept };
          if (withToken && SlackClient.carriesToken(url)) headers.authorization = `Bearer ${this.token}`;
          res = await fetch(this.target(url), { headers, redirect: 'manual', signal: AbortSignal.timeout(timeout) });
          const location = res.headers.get('location');
          if (res.status < 300 || res.status >= 400 || !location) break;
          await res.body?.cancel();
          if (hops >= 5) throw new SlackRequestError('too many redirects', res.status);
          // A test origin's redirect names the origin: map it back to the host it plays.
          const next = new URL(location, this.target(url));
          url = this.testOrigin && next.href.startsWith(`${this.testOrigin}/`) ? new URL(`https://${next.href.slice(this.testOrigin.length + 1)}`) : next;
        }
      } catch (err) {
        if (err instanceof SlackRequestError || attempt >= this.attempts) throw new SlackRequestError(err instanceof SlackRequestError ? err.message : `no answer (${(err as Error).name})`);
        await sleep(1000 * 2 ** (attempt - 1));
        continue;
      }
      if ((res.status === 429 || res.status >= 500) && attempt < this.attempts) {
        await res.body?.cancel();
        const after = Number(res.headers.get('retry-after'));
        await sleep(Math.min(Number.isFinite(after) && after > 0 ? after * 1000 : 1000 * 2 ** (attempt - 1), 60_000));
        continue;
      }
      return res;
    }
  }

  /** One Web API method's answer (`ok` checked), with the token. */
  async api(method: string, params: Record<string, string | number> = {}): Promise<{ body: Record<string, any>; headers: Headers }> {
    const url = new URL(`https://slack.com/api/${method}`);
    for (const [k, v] of Object.entries(params)) url.searchParams.set(k, String(v));
    const res = await this.get(url.href, 'application/json', true, API_TIMEOUT_MS);
    if (res.status !== 200) {
      await res.body?.cancel();
      throw new SlackRequestError(`Slack API ${method}: HTTP ${res.status}`, res.status);
    }
    let body: Record<string, any>;
    try {
      body = (await res.json()) as Record<string, any>;
    } catch {
      throw new SlackRequestError(`Slack API ${method}: the answer is not JSON`);
    }
    if (body.ok !== true) throw new SlackRequestError(`Slack API ${method}: ${typeof body.error === 'string' ? body.error : 'not ok'}`);
    return { body, headers: res.headers };
  }

  /**
   * The reference's check_slack_token_access: a user token (xoxp-) has its user's rights; a bot
   * token (xoxb-) must carry the scopes the import uses; any other is refused.
   */
  async checkToken(): Promise<void> {
    if (this.token.startsWith('xoxp-')) return;
    if (!this.token.startsWith('xoxb-')) throw new SlackRequestError('a Slack token starts with xoxb- (a bot token) or xoxp- (a user token)');
    let headers: Headers;
    try {
      headers = (await this.api('api.test')).headers;
    } catch (err) {
      // A token without some scope still answers api.test, with missing_scope; the header says which.
      if (!(err instanceof SlackRequestError) || !err.message.endsWith(': missing_scope')) throw new SlackRequestError(`the Slack token was refused (${(err as Error).message})`);
      headers = new Headers();
    }
    const has = new Set((headers.get('x-oauth-scopes') ?? '').split(',').map((s) => s.trim()));
    const missing = SLACK_TOKEN_SCOPES.filter((s) => !has.has(s));
    if (missing.length > 0) throw new SlackRequestError(`the Slack token lacks the scopes ${missing.join(', ')} (it needs ${SLACK_TOKEN_SCOPES.join(', ')})`);
  }

  /** Every member of users.list, 200 a page as the reference asks. */
  async usersList(): Promise<Record<string, any>[]> {
    const out: Record<string, any>[] = [];
    let cursor = '';
    for (;;) {
      const { body } = await this.api('users.list', cursor ? { limit: 200, cursor } : { limit: 200 });
      out.push(...((body.members ?? []) as Record<string, any>[]));
      cursor = String(body.response_metadata?.next_cursor ?? '');
      if (!cursor) return out;
    }
  }

  /**
   * Downloads a file to `dest` (through `dest.part`, renamed when whole), refusing more than
   * `limit` bytes. The token goes along to Slack's hosts when `withToken`.
   */
  async download(url: string, dest: string, opts: { limit: number; withToken: boolean; expect?: (contentType: string) => string | null }): Promise<{ size: number; contentType: string }> {
    const res = await this.get(url, '*/*', opts.withToken, DOWNLOAD_TIMEOUT_MS);
    if (res.status !== 200) {
      await res.body?.cancel();
      throw new SlackRequestError(`HTTP ${res.status}`, res.status);
    }
    const contentType = (res.headers.get('content-type') ?? 'application/octet-stream').split(';')[0].trim().toLowerCase();
    const refusal = opts.expect?.(contentType) ?? null;
    const length = Number(res.headers.get('content-length'));
    if (refusal === null && Number.isFinite(length) && length > opts.limit) {
      await res.body?.cancel();
      throw new SlackRequestError(`larger than the limit of ${opts.limit} bytes`);
    }
    if (refusal !== null || !res.body) {
      await res.body?.cancel();
      throw new SlackRequestError(refusal ?? 'an empty answer');
    }
    let size = 0;
    const count = new Transform({
      transform(chunk: Buffer, _enc, done) {
        size += chunk.length;
        done(size > opts.limit ? new SlackRequestError(`larger than the limit of ${opts.limit} bytes`) : null, chunk);
      },
    });
    const part = `${dest}.part`;
    try {
      await pipeline(Readable.fromWeb(res.body as ReadableStream), count, createWriteStream(part));
    } catch (err) {
      await rm(part, { force: true });
      throw err instanceof SlackRequestError ? err : new SlackRequestError(`cut off (${(err as Error).name})`);
    }
    await rename(part, dest);
    return { size, contentType };
  }
}
