import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

/**
 * A bot server on localhost for outgoing webhook tests: records every request it receives and
 * answers each with what `answer` says for that request's number (0 first).
 */
export interface Received {
  body: string;
  json: any;
  headers: IncomingMessage['headers'];
}

export type Answer = { status: number; body: string } | 'hang';

export async function botServer(t: { teardown(fn: () => unknown): void }, answer: (n: number, req: Received) => Answer): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: unknown = null;
      try {
        json = JSON.parse(body);
      } catch {
        json = Object.fromEntries(new URLSearchParams(body));
      }
      const entry = { body, json, headers: req.headers };
      received.push(entry);
      const a = answer(received.length - 1, entry);
      if (a === 'hang') return;
      res.writeHead(a.status, { 'content-type': 'application/json' }).end(a.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    server.closeAllConnections();
    server.close();
  });
  const port = (server.address() as { port: number }).port;
  return { url: `http://127.0.0.1:${port}/bot`, received };
}

/** Polls `check` every 100 ms until it returns something, for at most `ms`. */
export async function eventually<T>(check: () => Promise<T | undefined>, ms = 15_000): Promise<T | undefined> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined || Date.now() > end) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
}
