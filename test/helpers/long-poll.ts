import { request as httpRequest } from 'node:http';
import { basic } from './raw.js';
import type { Credentials, TestServer } from './server.js';

export interface PollAnswer {
  status: number;
  body: any;
}

/**
 * A GET /events with its parameters in the query string (the long-poll path's shape, as the
 * clients send it), with a way to hang up before its answer: a hung-up poll answers status 0.
 */
export function longPoll(ts: TestServer, creds: Credentials, params: Record<string, string | number>): { answer: Promise<PollAnswer>; hangUp(): void } {
  const path = `/api/v1/events?${new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)]))}`;
  let req: ReturnType<typeof httpRequest>;
  const answer = new Promise<PollAnswer>((resolve) => {
    req = httpRequest({ host: '127.0.0.1', port: ts.port, path, agent: false, headers: { host: ts.server.config.externalHost, authorization: basic(creds) } }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
    });
    req.on('error', () => resolve({ status: 0, body: null }));
    req.end();
  });
  return { answer, hangUp: () => req.destroy() };
}
