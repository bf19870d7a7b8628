import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import fc from 'fast-check';
import t from 'tap';
import { basic } from '../helpers/raw.js';
import { startTestServer } from '../helpers/server.js';

/**
 * Fuzzing multipart bodies at the byte level: many fields, fields over the size limit, files
 * over the upload limit or with odd names and types, malformed part headers, bodies cut short,
 * wrong boundaries, garbage. A client that writes its whole body before reading must always get
 * an answer or a closed connection, never a hang; every answer is JSON, never a 5xx; no
 * temporary file is left behind; the server goes on serving. STOA_FUZZ_SEED replays a run,
 * STOA_FUZZ_RUNS=<n> runs more cases.
 */
const RUNS = Number(process.env.STOA_FUZZ_RUNS ?? 10) * 10;
const SEED = Number(process.env.STOA_FUZZ_SEED ?? 20261123);

type Part = { name: string; filename?: string; type?: string; body: Buffer; headers?: string };

const text = fc.oneof(fc.string({ maxLength: 30 }), fc.constantFrom('', 'x'.repeat(5000), '"', '\r\n', '--', 'content', 'to', 'type', 'file', '\u0000', '💥'));
const part = fc.record(
  {
    name: text,
    filename: fc.oneof(fc.constant(undefined), text, fc.constantFrom('../../etc/passwd', 'a\\b.txt', '.', 'x'.repeat(300))),
    type: fc.oneof(fc.constant(undefined), fc.constantFrom('text/plain', 'image/png', 'application/octet-stream', 'garbage', '')),
    body: fc.oneof(fc.uint8Array({ maxLength: 2000 }).map((a) => Buffer.from(a)), fc.integer({ min: 0, max: 3 * 1024 * 1024 }).map((n) => Buffer.alloc(n, 97))),
    headers: fc.oneof(fc.constant(undefined), fc.constantFrom('Content-Transfer-Encoding: base64\r\n', 'X: y\r\n', 'Content-Disposition: garbage\r\n')),
  },
  { requiredKeys: ['name', 'body'] },
);

interface Shape {
  parts: Part[];
  /** Many small fields on top (the parameter limit is 50 here). */
  fields: number;
  boundary: string;
  /** The boundary the Content-Type header names (wrong when they differ). */
  declared: string;
  cut: number | null;
  garbage: boolean;
  path: string;
}

const shape: fc.Arbitrary<Shape> = fc.record({
  parts: fc.array(part, { maxLength: 4 }),
  fields: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 60 }), fc.constant(100_000)),
  boundary: fc.stringMatching(/^[A-Za-z0-9'()+_,-.\/:=?]{1,70}$/),
  declared: fc.constantFrom('same', 'other', ''),
  cut: fc.oneof(fc.constant(null), fc.integer({ min: 0, max: 4000 })),
  garbage: fc.boolean(),
  path: fc.constantFrom('/api/v1/user_uploads', '/api/v1/messages', '/api/v1/users/me/avatar', '/api/v1/realm/emoji/fuzzed', '/api/v1/fetch_api_key'),
}).map((s) => ({ ...s, declared: s.declared === 'same' ? s.boundary : s.declared === 'other' ? `${s.boundary}x` : '' }));

function bodyOf(s: Shape): Buffer {
  const chunks: Buffer[] = [];
  for (let i = 0; i < s.fields; i++) chunks.push(Buffer.from(`--${s.boundary}\r\nContent-Disposition: form-data; name="f${i}"\r\n\r\nv\r\n`));
  for (const p of s.parts) {
    const disposition = `form-data; name="${p.name.replace(/"/g, '%22')}"${p.filename === undefined ? '' : `; filename="${p.filename.replace(/"/g, '%22')}"`}`;
    chunks.push(Buffer.from(`--${s.boundary}\r\nContent-Disposition: ${disposition}\r\n${p.type === undefined ? '' : `Content-Type: ${p.type}\r\n`}${p.headers ?? ''}\r\n`), p.body, Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${s.boundary}--\r\n`));
  if (s.garbage) chunks.push(randomBytes(64));
  const body = Buffer.concat(chunks);
  return s.cut === null ? body : body.subarray(0, Math.min(s.cut, body.length));
}

t.test('fuzz: multipart bodies are answered or closed, never hang, leave nothing behind', async (t) => {
  t.setTimeout(900_000);
  const ts = await startTestServer(t, { requestLimits: { bodyBytes: 65536, params: 50, depth: 8 } });
  const tmp = join(ts.dataDir, 'uploads', 'tmp');
  const auth = basic(ts.owner);
  let cases = 0;
  await fc.assert(
    fc.asyncProperty(shape, async (s) => {
      cases++;
      const body = bodyOf(s);
      // The declared length is the whole body's, even when it is cut short: the server must
      // not wait forever for the rest (it answers when the client closes its side).
      const head = `POST ${s.path} HTTP/1.1\r\nHost: ${ts.server.config.externalHost}\r\nAuthorization: ${auth}\r\nContent-Type: multipart/form-data${s.declared ? `; boundary=${s.declared}` : ''}\r\nContent-Length: ${s.cut === null ? body.length : body.length + 10}\r\n\r\n`;
      const what = `${s.path}: ${s.parts.length} parts, ${s.fields} fields, ${body.length} bytes${s.cut === null ? '' : ' (cut short)'}, boundary ${s.declared === s.boundary ? 'right' : s.declared ? 'wrong' : 'missing'}`;
      const outcome = await new Promise<{ closed: boolean; data: string }>((resolve) => {
        const socket = connect(ts.port, '127.0.0.1');
        let data = '';
        const timer = setTimeout(() => {
          socket.destroy();
          resolve({ closed: false, data });
        }, 60_000);
        const done = () => {
          clearTimeout(timer);
          resolve({ closed: true, data });
        };
        socket.on('data', (c) => {
          data += c;
          // A complete answer on a connection the server keeps: done.
          const length = /content-length: (\d+)/i.exec(data)?.[1];
          const at = data.indexOf('\r\n\r\n');
          if (length !== undefined && at >= 0 && Buffer.byteLength(data.slice(at + 4)) >= Number(length)) {
            socket.destroy();
            done();
          }
        });
        socket.on('error', () => undefined);
        socket.on('close', done);
        socket.on('connect', () => socket.end(Buffer.concat([Buffer.from(head), body])));
      });
      if (!outcome.closed) throw new Error(`${what}: no answer and the connection left open after 60 s`);
      if (outcome.data) {
        const status = Number(/^HTTP\/1\.1 (\d+)/.exec(outcome.data)?.[1]);
        if (!(status >= 200 && status < 500)) throw new Error(`${what}: answered ${outcome.data.slice(0, 300)}`);
        const at = outcome.data.indexOf('\r\n\r\n') + 4;
        const length = Number(/content-length: (\d+)/i.exec(outcome.data.slice(0, at))?.[1] ?? outcome.data.length);
        const json = Buffer.from(outcome.data.slice(at)).subarray(0, length).toString();
        // A refusal of a body the server did not read must close the connection: what follows
        // it would be read as another request.
        const rest = Buffer.from(outcome.data.slice(at)).subarray(length).toString();
        if (rest.length > 0) throw new Error(`${what}: a second answer followed the first on the connection: ${rest.slice(0, 200)}`);
        let parsed: { result?: string };
        try {
          parsed = JSON.parse(json);
        } catch {
          throw new Error(`${what}: not JSON: ${outcome.data.slice(0, 300)}`);
        }
        if (status >= 400 && parsed.result !== 'error') throw new Error(`${what}: ${status} not in the error shape`);
      }
      // The request's temporary files go with it (the server may still be writing and fsyncing
      // them: on a loaded machine that takes seconds).
      for (let i = 0; i < 3000 && existsSync(tmp) && readdirSync(tmp).length > 0; i++) await new Promise((r) => setTimeout(r, 20));
      if (existsSync(tmp) && readdirSync(tmp).length > 0) throw new Error(`${what}: left ${readdirSync(tmp).join(', ')} in uploads/tmp`);
      const alive = await ts.request('GET', '/users/me');
      if (alive.status !== 200) throw new Error(`${what}: the server no longer serves (${alive.status})`);
    }),
    // Counterexamples hold megabytes of body: reported by their description (the error) only.
    { numRuns: RUNS, seed: SEED, endOnFailure: true, reporter: (out) => {
      if (out.failed) throw new Error(`multipart fuzz failed after ${out.numRuns} cases (seed ${out.seed}, path ${out.counterexamplePath}): ${(out.errorInstance as Error | undefined)?.message ?? "failed"}`);
    } },
  );
  t.equal(cases, RUNS, `${RUNS} bodies`);
});
