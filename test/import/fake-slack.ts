import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local server that plays Slack for `stoa realm import --slack-token`: the Web API on
 * slack.com and the hosts of files, emoji and icons. The importer reaches it through
 * STOA_TEST_SLACK_ORIGIN, which sends a request for https://<host><path> to <origin>/<host><path>.
 * The API answers as Slack's does, `{"ok": false, "error": "invalid_auth"}` with status 200 for a
 * wrong token; files.slack.com refuses a request without the token with 403. Every request is
 * recorded with the Authorization header it carried.
 */
export const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');
export const GIF = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

export interface SlackRequest {
  host: string;
  path: string;
  authorization: string | undefined;
}

export interface FakeSlack {
  origin: string;
  requests: SlackRequest[];
  /** Files by path on files.slack.com: bytes, or a status to answer, or a redirect. */
  files: Map<string, { body?: Buffer; type?: string; status?: number; redirect?: string; hold?: boolean; delayMs?: number; busyOnce?: boolean }>;
  /** The most requests to files.slack.com under way at once. */
  maxInFlight(): number;
  /** Resolves the held answers (a file marked `hold` is answered only then). */
  release(): void;
  close(): Promise<void>;
}

export const SCOPES = 'emoji:read,files:read,team:read,users:read,users:read.email';

export async function startFakeSlack(
  token: string,
  data: { members: Record<string, unknown>[]; emoji: Record<string, string>; bots?: Record<string, unknown>; others?: Record<string, unknown> },
): Promise<FakeSlack> {
  const requests: SlackRequest[] = [];
  const files: FakeSlack['files'] = new Map();
  let released = false;
  let inFlight = 0;
  let most = 0;
  const held: (() => void)[] = [];
  const json = (res: ServerResponse, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(200, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url!, 'http://fake');
    const [, host, ...rest] = url.pathname.split('/');
    const path = `/${rest.join('/')}`;
    requests.push({ host, path, authorization: req.headers.authorization });
    const authed = req.headers.authorization === `Bearer ${token}`;
    if (host === 'slack.com') {
      if (!authed) return json(res, { ok: false, error: 'invalid_auth' });
      if (path === '/api/api.test') return json(res, { ok: true }, { 'x-oauth-scopes': SCOPES });
      if (path === '/api/users.list') {
        // Two pages, as Slack paginates with a cursor.
        const second = url.searchParams.get('cursor') === 'page2';
        const half = Math.ceil(data.members.length / 2);
        return json(res, { ok: true, members: second ? data.members.slice(half) : data.members.slice(0, half), response_metadata: { next_cursor: second ? '' : 'page2' } });
      }
      if (path === '/api/emoji.list') return json(res, { ok: true, emoji: data.emoji });
      if (path === '/api/team.info') {
        const team = url.searchParams.get('team');
        if (team) return json(res, team === 'T2' ? { ok: true, team: { id: 'T2', domain: 'other' } } : { ok: false, error: 'team_not_found' });
        return json(res, { ok: true, team: { id: 'T1', name: 'Team', icon: { image_132: 'https://avatars.slack-edge.com/T1/icon_132.png', image_default: false } } });
      }
      if (path === '/api/bots.info') {
        const bot = data.bots?.[url.searchParams.get('bot') ?? ''];
        return json(res, bot ? { ok: true, bot } : { ok: false, error: 'bot_not_found' });
      }
      if (path === '/api/users.info') {
        const user = data.others?.[url.searchParams.get('user') ?? ''];
        return json(res, user ? { ok: true, user } : { ok: false, error: 'user_not_found' });
      }
      return json(res, { ok: false, error: 'unknown_method' });
    }
    if (host === 'emoji.slack-edge.com') {
      if (path.endsWith('.gif')) return res.writeHead(200, { 'content-type': 'image/gif' }).end(GIF);
      return res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    }
    if (host === 'ca.slack-edge.com') {
      if (path.includes('-bad-')) return res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return res.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
    }
    if (host === 'avatars.slack-edge.com') return res.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
    if (host === 'elsewhere.example') return res.writeHead(200, { 'content-type': 'text/plain' }).end('moved away');
    if (host === 'files.slack.com') {
      inFlight++;
      most = Math.max(most, inFlight);
      res.on('close', () => inFlight--);
      const file = files.get(path);
      if (!file) return res.writeHead(404, { 'content-type': 'text/plain' }).end('The requested file could not be found.');
      if (!authed) return res.writeHead(403, { 'content-type': 'text/plain' }).end('no');
      if (file.redirect) return res.writeHead(302, { location: file.redirect }).end();
      if (file.status) return res.writeHead(file.status, { 'content-type': 'text/plain' }).end('refused');
      if (file.busyOnce) {
        // Rate limited once, as Slack answers a client in a hurry.
        file.busyOnce = false;
        return res.writeHead(429, { 'retry-after': '1', 'content-type': 'text/plain' }).end('slow down');
      }
      if (file.delayMs) return void setTimeout(() => res.writeHead(200, { 'content-type': file.type ?? 'application/octet-stream' }).end(file.body), file.delayMs);
      const send = () => res.writeHead(200, { 'content-type': file.type ?? 'application/octet-stream' }).end(file.body);
      if (file.hold && !released) {
        // The headers go out at once, the body only when released: a download under way.
        res.writeHead(200, { 'content-type': file.type ?? 'application/octet-stream', 'content-length': String(file.body!.length) });
        res.write(file.body!.subarray(0, 1));
        held.push(() => res.end(file.body!.subarray(1)));
        return;
      }
      return send();
    }
    res.writeHead(404).end();
  };
  const server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    files,
    maxInFlight: () => most,
    release() {
      released = true;
      for (const end of held.splice(0)) end();
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
