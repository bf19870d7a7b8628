import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { mkdir, open, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { parse as parseQueryString } from 'node:querystring';
import type { Readable } from 'node:stream';
import type busboy from 'busboy';
// Before koa-bodyparser: co-body's qs, which it never calls, stays unloaded.
import './no-qs.js';
import bodyParser from 'koa-bodyparser';
import getRawBody from 'raw-body';
import type { Context, Middleware, Next } from 'koa';
import type { UploadedFile } from '../api/uploads/index.js';
import { ApiError } from '../lib/errors.js';
import { checkParams, type InputLimits } from '../lib/input-limits.js';
import { log } from '../lib/log.js';
import { MAX_FILE_UPLOAD_BYTES, MAX_FILE_UPLOAD_SIZE_MIB } from '../store/uploads.js';

/** Files one multipart request may carry (busboy's limit): each streams to disk, capped in size. */
const MAX_FILES = 2;

/**
 * Bodies are limited while they stream in, before anything is parsed: a JSON or form body to
 * `requestLimits.bodyBytes`; a multipart body's fields to the same in total, its files to the
 * upload size each. A declared Content-Length over the limit is refused before a byte is read.
 * The 413 closes the connection, so the unread rest of the body is never read.
 */
export const bodyTooLarge = (limit: number) =>
  new ApiError(`Request body is too large (limit: ${limit >= 1048576 ? `${Math.round((limit / 1048576) * 10) / 10} MiB` : `${Math.round(limit / 1024)} KiB`}).`, {
    status: 413,
    headers: { Connection: 'close' },
  });

export interface BodyLimits extends InputLimits {
  bodyBytes: number;
}

/**
 * Request parameters, as the reference reads them: the query string merged with a urlencoded,
 * multipart (zulip-js sends every POST that way) or JSON body, the body winning. A repeated key
 * keeps its last value, as Django's QueryDict.get does.
 */
export function lastValues(input: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) out[key] = Array.isArray(value) ? value[value.length - 1] : value;
  return out;
}

/** Streams one uploaded file to `path` and fsyncs it: the shard acknowledges it as stored. */
async function saveFile(stream: Readable, dir: string, path: string): Promise<number> {
  await mkdir(dir, { recursive: true });
  const handle = await open(path, 'wx');
  let size = 0;
  try {
    for await (const chunk of stream) {
      await handle.write(chunk as Buffer);
      size += (chunk as Buffer).length;
    }
    await handle.sync();
  } finally {
    await handle.close();
  }
  return size;
}

/**
 * busboy, loaded with the first multipart body rather than with the server: zulip-js sends
 * every POST so, but a server that no such client has reached yet does not hold it (P4).
 */
let busboyLoaded: typeof busboy | undefined;
const loadBusboy = async () => (busboyLoaded ??= (await import('busboy')).default);

const tooLarge = () => new ApiError(`File is larger than this server's configured maximum upload size (${MAX_FILE_UPLOAD_SIZE_MIB} MiB).`);

/** Writing an uploaded file failed (a full disk, an I/O error): nothing was stored. */
const uploadNotStored = () =>
  new ApiError('The server could not store the uploaded file (storage error). Nothing was changed; try again later.', { code: 'STORAGE_ERROR', status: 503 });

/**
 * Fields, and files streamed to temporary files under `uploadDir` (listed in `files` as soon as
 * they are opened, so the caller can remove them whatever happens). A file over the upload limit
 * stops being written and fails the request once the body has been read.
 *
 * Any other refusal (too many fields, fields too large, a malformed body, a file that cannot be
 * written) stops reading at once and closes the connection, as the 413 paths do: a client that
 * writes its whole body before reading would otherwise wait forever on a body nobody reads. The
 * refusal waits for the file writes begun so far to end, so that the caller's clean-up finds
 * every temporary file they made.
 */
function parseMultipart(ctx: Context, uploadDir: string, files: UploadedFile[], limits: BodyLimits, makeParser: typeof busboy): Promise<Record<string, string>> {
  return new Promise((resolve, reject) => {
    const fields: Record<string, string> = {};
    const writes: Promise<unknown>[] = [];
    const streams = new Set<Readable>();
    let truncated = false;
    let fieldBytes = 0;
    let failed = false;
    let parser: busboy.Busboy;
    try {
      // One byte over the limit marks a file as too large (busboy truncates at the limit itself).
      // Browsers and the Python bindings send a non-ASCII file name as raw UTF-8.
      parser = makeParser({
        headers: ctx.req.headers,
        defParamCharset: 'utf8',
        limits: { fieldSize: limits.bodyBytes + 1, fields: limits.params + 1, fileSize: MAX_FILE_UPLOAD_BYTES + 1, files: MAX_FILES },
      });
    } catch {
      // No boundary, or no usable one: the body is never read, so the connection goes too.
      return reject(new ApiError('Malformed multipart body', { headers: { Connection: 'close' } }));
    }
    const fail = (err: ApiError) => {
      if (failed) return;
      failed = true;
      ctx.req.unpipe(parser);
      ctx.req.pause();
      err.headers.Connection = 'close';
      for (const stream of streams) stream.destroy();
      void Promise.all(writes).then(() => reject(err));
    };
    parser.on('field', (name, value, info) => {
      if (failed) return;
      fieldBytes += name.length + value.length;
      if (info.valueTruncated || fieldBytes > limits.bodyBytes) return fail(bodyTooLarge(limits.bodyBytes));
      fields[name] = value;
    });
    parser.on('fieldsLimit', () => fail(new ApiError(`Too many parameters (limit: ${limits.params}).`)));
    parser.on('file', (field, stream, info) => {
      if (failed) return void stream.resume();
      const filename = info.filename ?? '';
      // busboy reports a part without a Content-Type header as text/plain (RFC 7578's default).
      // The Python bindings send files that way (zulip.Client upload_file, call_endpoint files=),
      // and the reference types such a file by its name: so a text/plain whose name says
      // otherwise is left for contentTypeFor() to type by the name.
      const sent = info.mimeType === 'text/plain' && !/\.(txt|text|log)$/i.test(filename) ? '' : info.mimeType;
      const file: UploadedFile = { field, filename, tmpPath: join(uploadDir, randomBytes(16).toString('hex')), size: 0, contentType: sent };
      files.push(file);
      streams.add(stream);
      stream.once('limit', () => (truncated = true));
      writes.push(
        saveFile(stream, uploadDir, file.tmpPath).then(
          (size) => {
            streams.delete(stream);
            file.size = size;
          },
          (err: NodeJS.ErrnoException) => {
            streams.delete(stream);
            // Destroyed by fail(): the refusal is already on its way.
            if (failed) return;
            log.error({ err, path: file.tmpPath }, 'writing an uploaded file failed');
            fail(uploadNotStored());
          },
        ),
      );
    });
    parser.on('error', () => fail(new ApiError('Malformed multipart body')));
    // A client that goes away mid-body: busboy, waiting for the rest, would never end, nor the
    // file being written, and the request would hold its temporary file for ever.
    // (The request closes without ending when its connection goes before its body has been
    // read, even when the body had all arrived: the client went away mid-body, or half-closed
    // its side. It may have gone already, while the request waited to be parsed.)
    const cutShort = () => {
      if (!ctx.req.readableEnded) fail(new ApiError('The request body was cut short.'));
    };
    if (ctx.req.destroyed) return cutShort();
    ctx.req.once('close', cutShort);
    parser.on('close', () => {
      void Promise.all(writes).then(() => {
        if (failed) return;
        if (truncated) reject(tooLarge());
        else resolve(fields);
      });
    });
    ctx.req.pipe(parser);
  });
}

function otherBodies(limits: BodyLimits) {
  return bodyParser({
    enableTypes: ['json', 'form'],
    jsonLimit: limits.bodyBytes,
    formLimit: limits.bodyBytes,
    // Form bodies are read as Django reads them and as the query string is read here: flat
    // names (qs would make `a[b]=1` and `a.b=1` nested objects), a repeated name a list.
    qs: { parse: (text: string) => parseQueryString(text, '&', '=', { maxKeys: limits.params + 1 }) },
    onerror: (err: Error, ctx: Context) => {
      if ((err as { status?: number }).status === 413) throw bodyTooLarge(limits.bodyBytes);
      throw ctx.is('json') ? new ApiError('Malformed JSON', { code: 'INVALID_JSON' }) : new ApiError('Malformed request body');
    },
  } as unknown as bodyParser.Options);
}

/**
 * A payload route's body (an incoming webhook's) that is neither JSON, a form nor multipart:
 * text/plain (some services send their JSON so), another type, or none at all. The reference
 * reads a webhook's body as JSON whatever its content type, so its raw text is kept for
 * front/webhook.ts, in the charset the request names (UTF-8 when it names none).
 */
async function readPayloadText(ctx: Context, limit: number): Promise<void> {
  try {
    const text = await getRawBody(ctx.req, { limit, length: ctx.request.length, encoding: ctx.request.charset || 'utf-8' });
    (ctx.request as { rawBody?: string }).rawBody = text;
  } catch (err) {
    if ((err as { status?: number }).status === 413) throw bodyTooLarge(limit);
    throw new ApiError('Malformed request body');
  }
}

/** Parameter names starting with this are the front end's own (`__files`): clients cannot set them. */
const INTERNAL = '__';

export function withoutInternal(input: Record<string, unknown>): Record<string, unknown> {
  for (const key of Object.keys(input)) if (key.startsWith(INTERNAL)) delete input[key];
  return input;
}

/**
 * A middleware that sets ctx.state.params to the merged parameters. Files of a multipart body go
 * to temporary files in `uploadDir` and reach the shard as `__files` (POST /user_uploads moves
 * the one it accepts into place); whatever is left of them is removed once the request is done.
 * `payload`: the route's body is a service's payload (routes.ts), read whatever its type; on
 * other routes a body of another type is ignored, as the reference's REST views ignore it.
 */
export function paramParser(uploadDir: string, limits: BodyLimits, payload = false): Middleware {
  // Left by a crash mid-request: no request is in flight yet, so none of them is in use.
  rmSync(uploadDir, { recursive: true, force: true });
  const parseOther = otherBodies(limits);
  // Fields, plus the files (each at most the upload size, plus its part headers).
  const multipartLimit = limits.bodyBytes + MAX_FILES * (MAX_FILE_UPLOAD_BYTES + 65536);
  return async (ctx: Context, next: Next) => {
    const files: UploadedFile[] = [];
    try {
      let body: Record<string, unknown> = {};
      const multipart = ctx.is('multipart');
      let json = false;
      const jsonOrForm = ctx.is('json', 'urlencoded');
      if ((ctx.request.length ?? 0) > (multipart ? multipartLimit : limits.bodyBytes) && (multipart || jsonOrForm || payload)) {
        throw bodyTooLarge(multipart ? multipartLimit : limits.bodyBytes);
      }
      if (multipart) body = await parseMultipart(ctx, uploadDir, files, limits, busboyLoaded ?? (await loadBusboy()));
      else if (payload && !jsonOrForm) await readPayloadText(ctx, limits.bodyBytes);
      else {
        await parseOther(ctx, async () => undefined);
        const parsed = (ctx.request as { body?: unknown }).body;
        if (parsed !== undefined && (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))) {
          throw new ApiError('Malformed JSON', { code: 'INVALID_JSON' });
        }
        body = (parsed as Record<string, unknown>) ?? {};
        json = parsed !== undefined && Boolean(ctx.is('json'));
      }
      // A repeated key of a query string or form keeps its last value; a JSON body's list is a
      // list (unwrapping it lost its outer level: a list of recipients became its last one, and
      // depth was counted one less than for the same JSON sent as a field).
      const params = withoutInternal({ ...lastValues(ctx.query), ...(json ? body : lastValues(body)) });
      // Before anything copies them to a shard: their number, depth and Unicode.
      checkParams(params, limits);
      ctx.state.params = params;
      if (files.length > 0) ctx.state.params.__files = files;
      await next();
    } finally {
      await Promise.all(files.map((f) => unlink(f.tmpPath).catch(() => undefined)));
    }
  };
}
