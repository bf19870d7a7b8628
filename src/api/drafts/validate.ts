import { badRequest } from '../../lib/errors.js';

/**
 * A draft object as the reference's DraftData model (pydantic, extra keys forbidden) checks it,
 * with its error texts: `drafts[0]["to"] is not a list`, `draft["content"] cannot be blank`.
 * Only the shape: what the values mean is checked by actions.ts.
 */
export interface DraftInput {
  type: '' | 'stream' | 'private';
  to: number[];
  topic: string;
  content: string;
  timestamp: number | null;
}

const FIELDS = ['type', 'to', 'topic', 'content', 'timestamp'];

export function parseDraft(value: unknown, name: string): DraftInput {
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw badRequest(`${name} is not a dict`);
  const obj = value as Record<string, unknown>;
  const at = (field: string) => `${name}[${JSON.stringify(field)}]`;
  for (const key of Object.keys(obj)) if (!FIELDS.includes(key)) throw badRequest(`Argument "${key}" at ${at(key)} is unexpected`);
  for (const field of ['type', 'to', 'topic', 'content']) if (!(field in obj)) throw badRequest(`${at(field)} field is missing`);
  if (obj.type !== '' && obj.type !== 'stream' && obj.type !== 'private') throw badRequest(`Invalid ${at('type')}`);
  if (!Array.isArray(obj.to)) throw badRequest(`${at('to')} is not a list`);
  obj.to.forEach((id, i) => {
    if (!Number.isInteger(id)) throw badRequest(`${at('to')}[${i}] is not an integer`);
  });
  if (typeof obj.topic !== 'string') throw badRequest(`${at('topic')} is not a string`);
  if (typeof obj.content !== 'string') throw badRequest(`${at('content')} is not a string`);
  if (obj.content.length === 0) throw badRequest(`${at('content')} cannot be blank`);
  const ts = obj.timestamp;
  if (ts !== undefined && ts !== null && (typeof ts !== 'number' || !Number.isFinite(ts))) throw badRequest(`${at('timestamp')} is not a number`);
  return { type: obj.type, to: obj.to as number[], topic: obj.topic, content: obj.content, timestamp: (ts as number | null | undefined) ?? null };
}
