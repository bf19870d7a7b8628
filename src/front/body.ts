import busboy from 'busboy';
import bodyParser from 'koa-bodyparser';
import type { Context, Next } from 'koa';
import { ApiError } from '../lib/errors.js';

const LIMIT_BYTES = 25 * 1024 * 1024;
const LIMIT = '25mb';

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

function parseMultipart(ctx: Context): Promise<Record<string, string>> {
  return new Promise((resolve, reject) => {
    const fields: Record<string, string> = {};
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: ctx.req.headers, limits: { fieldSize: LIMIT_BYTES } });
    } catch {
      return reject(new ApiError('Malformed multipart body'));
    }
    parser.on('field', (name, value) => {
      fields[name] = value;
    });
    // File uploads belong to POST /user_uploads (the messages issue); elsewhere files are
    // drained so the request completes.
    parser.on('file', (_name, stream) => stream.resume());
    parser.on('error', () => reject(new ApiError('Malformed multipart body')));
    parser.on('close', () => resolve(fields));
    ctx.req.pipe(parser);
  });
}

const parseOther = bodyParser({
  enableTypes: ['json', 'form'],
  jsonLimit: LIMIT,
  formLimit: LIMIT,
  onerror: (_err, ctx) => {
    throw ctx.is('json') ? new ApiError('Malformed JSON', { code: 'INVALID_JSON' }) : new ApiError('Malformed request body');
  },
});

/** Sets ctx.state.params to the merged parameters. */
export async function parseParams(ctx: Context, next: Next): Promise<void> {
  let body: Record<string, unknown> = {};
  if (ctx.is('multipart')) body = await parseMultipart(ctx);
  else {
    await parseOther(ctx, async () => undefined);
    const parsed = (ctx.request as { body?: unknown }).body;
    if (parsed !== undefined && (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))) {
      throw new ApiError('Malformed JSON', { code: 'INVALID_JSON' });
    }
    body = (parsed as Record<string, unknown>) ?? {};
  }
  ctx.state.params = { ...lastValues(ctx.query), ...lastValues(body) };
  await next();
}
