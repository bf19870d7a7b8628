import type { Context } from 'koa';
import { lastValues, withoutInternal } from './body.js';

/**
 * The parameters of an incoming webhook (POST /api/v1/external/{integration}). A service posts
 * its own JSON, whose keys are no API parameters: as in the reference, parameters come from the
 * query string and a form body only, and the body itself reaches the integration untouched
 * (`__payload`), with the headers that name the event (`__headers`: X-GitHub-Event and the like).
 * A form body's own text is the payload too: the reference reads the body as JSON whatever its
 * content type, and GitHub's form mode puts the JSON in a `payload` field, which wins.
 */
export function webhookParams(ctx: Context): Record<string, unknown> {
  const raw = (ctx.request as { rawBody?: string }).rawBody ?? '';
  const form = ctx.is('urlencoded') ? ((ctx.request as { body?: Record<string, unknown> }).body ?? {}) : {};
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(ctx.headers)) {
    if (typeof value === 'string' && (name.startsWith('x-') || name === 'content-type' || name === 'user-agent')) headers[name] = value;
  }
  return { ...withoutInternal({ ...lastValues(ctx.query), ...lastValues(form) }), __payload: raw, __headers: headers };
}
