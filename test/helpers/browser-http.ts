import { request as httpRequest } from 'node:http';
import type { TestServer } from './server.js';

/**
 * HTTP as a browser sends it, without a browser: cookies kept in a jar from Set-Cookie, forms
 * posted urlencoded, an Origin header on writes. For the session and CSRF rules, which a real
 * browser (test/web/) would hide behind its own behaviour.
 */
export interface PageAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The body as JSON, when it is. */
  json: any;
  setCookies: string[];
}

export class Jar {
  readonly cookies = new Map<string, string>();
  take(setCookies: string[]): void {
    for (const line of setCookies) {
      const [pair, ...attrs] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      if (attrs.some((a) => /^\s*max-age=0\s*$/i.test(a)) || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
  header(): string | undefined {
    return this.cookies.size ? [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ') : undefined;
  }
}

export interface PageOptions {
  jar?: Jar;
  form?: Record<string, string>;
  headers?: Record<string, string>;
  host?: string;
}

export function browse(ts: TestServer, method: string, path: string, opts: PageOptions = {}): Promise<PageAnswer> {
  const host = opts.host ?? ts.server.config.externalHost;
  const headers: Record<string, string> = { host, accept: 'text/html,application/xhtml+xml', ...opts.headers };
  const cookie = opts.jar?.header();
  if (cookie) headers.cookie = cookie;
  let body: Buffer | undefined;
  if (opts.form) {
    body = Buffer.from(new URLSearchParams(opts.form).toString());
    headers['content-type'] = 'application/x-www-form-urlencoded';
    headers['content-length'] = String(body.length);
  }
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: ts.port, method, path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        const raw = res.headers['set-cookie'];
        const setCookies = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
        opts.jar?.take(setCookies);
        resolve({ status: res.statusCode!, headers: res.headers, text, json, setCookies });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Logs in through the login form; the jar then holds the session and CSRF cookies. */
export async function logIn(ts: TestServer, email: string, password: string, jar = new Jar()): Promise<Jar> {
  const res = await browse(ts, 'POST', '/login/', { jar, form: { username: email, password }, headers: { origin: `http://${ts.server.config.externalHost}` } });
  if (res.status !== 302) throw new Error(`login failed (${res.status}): ${res.text.slice(0, 300)}`);
  return jar;
}

/** A /json/ call with the jar's cookies and, unless `csrf` is false, its CSRF token. */
export function json(ts: TestServer, jar: Jar, method: string, path: string, params: Record<string, unknown> = {}, opts: { csrf?: string | false; headers?: Record<string, string> } = {}): Promise<PageAnswer> {
  const pairs = Object.entries(params).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)] as [string, string]);
  const write = method !== 'GET';
  const token = opts.csrf === false ? undefined : (opts.csrf ?? jar.cookies.get('csrftoken'));
  const headers: Record<string, string> = { accept: 'application/json', ...(token && write ? { 'x-csrftoken': token } : {}), ...opts.headers };
  const query = !write && pairs.length ? `?${new URLSearchParams(pairs)}` : '';
  return browse(ts, method, `/json${path}${query}`, { jar, headers, ...(write ? { form: Object.fromEntries(pairs) } : {}) });
}
