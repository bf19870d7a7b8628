import { request as httpRequest } from 'node:http';
import { checkResponse } from './openapi.js';
import type { Credentials, Response, TestServer } from './server.js';

/**
 * File uploads and downloads over real HTTP: a multipart body with file parts, as zulip-js and
 * the Python bindings send POST /user_uploads, and raw GETs of the /user_uploads/... site paths,
 * whose answer is the file itself rather than JSON.
 */
export interface FilePart {
  /** The form field; clients use `file` or the file's name. */
  field?: string;
  filename: string;
  content: Buffer | string;
  /** The part's Content-Type; null sends none, as the Python bindings do. */
  contentType?: string | null;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

function basic(creds: Credentials): string {
  return `Basic ${Buffer.from(`${creds.email}:${creds.apiKey}`).toString('base64')}`;
}

function send(ts: TestServer, method: string, path: string, headers: Record<string, string>, body?: Buffer): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: ts.port, method, path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

export function multipartBody(files: FilePart[], fields: Record<string, string> = {}): { body: Buffer; contentType: string } {
  const boundary = `stoa${Math.random().toString(16).slice(2)}`;
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  }
  for (const f of files) {
    // As browsers and urllib3 write names: raw UTF-8, with quotes and line breaks escaped.
    const filename = f.filename.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
    const head = `--${boundary}\r\nContent-Disposition: form-data; name="${f.field ?? 'file'}"; filename="${filename}"\r\n${f.contentType === null ? '' : `Content-Type: ${f.contentType ?? 'application/octet-stream'}\r\n`}\r\n`;
    parts.push(Buffer.from(head), Buffer.isBuffer(f.content) ? f.content : Buffer.from(f.content), Buffer.from('\r\n'));
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** POST /api/v1/user_uploads with file parts; a 2xx answer is checked against the reference. */
export function uploadFiles(ts: TestServer, files: FilePart[], opts: { auth?: Credentials | null; host?: string; fields?: Record<string, string> } = {}): Promise<Response> {
  return sendFiles(ts, 'POST', '/user_uploads', files, opts);
}

/** Any API request with file parts (and form fields), as clients send uploads; 2xx answers checked. */
export async function sendFiles(ts: TestServer, method: string, path: string, files: FilePart[], opts: { auth?: Credentials | null; host?: string; fields?: Record<string, string> } = {}): Promise<Response> {
  const { body, contentType } = multipartBody(files, opts.fields);
  const headers: Record<string, string> = { host: opts.host ?? ts.server.config.externalHost, 'content-type': contentType, 'content-length': String(body.length) };
  const auth = opts.auth === undefined ? ts.owner : opts.auth;
  if (auth) headers.authorization = basic(auth);
  const raw = await send(ts, method, `/api/v1${path}`, headers, body);
  const parsed = JSON.parse(raw.body.toString('utf8'));
  if (raw.status >= 200 && raw.status < 300) checkResponse(method, path, parsed);
  return { status: raw.status, headers: raw.headers, body: parsed };
}

/** A GET of a site path (such as an upload's URL), answered with raw bytes. */
export function fetchRaw(ts: TestServer, path: string, opts: { auth?: Credentials | null; host?: string } = {}): Promise<RawResponse> {
  const headers: Record<string, string> = { host: opts.host ?? ts.server.config.externalHost };
  if (opts.auth) headers.authorization = basic(opts.auth);
  return send(ts, 'GET', encodeURI(path), headers);
}
