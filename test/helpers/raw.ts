import { connect } from 'node:net';

/**
 * HTTP at the byte level, for what a well-behaved client library will not send: malformed
 * request lines, oversized headers, bodies larger than they claim, bodies that never end.
 */
export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  /** The body parsed as JSON, or the text when it is not JSON. */
  body: any;
  text: string;
}

function parse(raw: string): RawAnswer {
  const end = raw.indexOf('\r\n\r\n');
  const head = end < 0 ? raw : raw.slice(0, end);
  let text = end < 0 ? '' : raw.slice(end + 4);
  const [statusLine, ...lines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const at = line.indexOf(':');
    if (at > 0) headers[line.slice(0, at).trim().toLowerCase()] = line.slice(at + 1).trim();
  }
  if (headers['transfer-encoding'] === 'chunked') {
    let out = '';
    let rest = text;
    for (;;) {
      const nl = rest.indexOf('\r\n');
      const size = parseInt(rest.slice(0, nl), 16);
      if (!size) break;
      out += rest.slice(nl + 2, nl + 2 + size);
      rest = rest.slice(nl + 2 + size + 2);
    }
    text = out;
  }
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: the caller checks
  }
  return { status: Number(statusLine.split(' ')[1]), headers, body, text };
}

/**
 * Writes `chunks` to a fresh connection (pausing `gapMs` between them) and reads until the
 * server closes the connection or has sent a complete answer.
 */
export function rawExchange(port: number, chunks: (string | Buffer)[], gapMs = 0): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let data = '';
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      socket.destroy();
      resolve(parse(data));
    };
    socket.on('data', (chunk) => {
      data += chunk.toString('utf8');
      const answer = parse(data);
      const length = answer.headers['content-length'];
      if (length !== undefined && Buffer.byteLength(answer.text) >= Number(length)) finish();
    });
    socket.on('end', finish);
    socket.on('close', finish);
    socket.on('error', (err) => (data ? finish() : reject(err)));
    socket.on('connect', async () => {
      for (const chunk of chunks) {
        if (done || socket.destroyed) return;
        socket.write(chunk);
        if (gapMs) await new Promise((r) => setTimeout(r, gapMs));
      }
    });
  });
}

/** A request's bytes: request line, headers, body. */
export function rawRequest(method: string, path: string, headers: Record<string, string>, body = ''): string {
  const lines = [`${method} ${path} HTTP/1.1`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
  if (body && !Object.keys(headers).some((k) => k.toLowerCase() === 'content-length' || k.toLowerCase() === 'transfer-encoding')) lines.push(`Content-Length: ${Buffer.byteLength(body)}`);
  return `${lines.join('\r\n')}\r\n\r\n${body}`;
}

export const basic = (creds: { email: string; apiKey: string }) => `Basic ${Buffer.from(`${creds.email}:${creds.apiKey}`).toString('base64')}`;
