/**
 * A value already serialised as JSON, which the reply writer (shard/dispatch.ts) splices into
 * the body as it is. Node 20 has no JSON.rawJSON; GET /messages uses this to send cached
 * message JSON without parsing and serialising it again.
 */
export class RawJson {
  constructor(readonly json: string) {}

  static array(items: string[]): RawJson {
    return new RawJson(`[${items.join(',')}]`);
  }
}

/** JSON.stringify of a flat object whose top-level values may be RawJson. */
export function stringifyWithRaw(body: Record<string, unknown>): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(body)) {
    if (value === undefined) continue;
    parts.push(`${JSON.stringify(key)}:${value instanceof RawJson ? value.json : JSON.stringify(value)}`);
  }
  return `{${parts.join(',')}}`;
}
