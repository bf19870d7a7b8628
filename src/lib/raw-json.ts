/**
 * A value already serialised as JSON, which the reply writer (host/dispatch.ts) splices into
 * the body as it is. Node 20 has no JSON.rawJSON; GET /messages uses this to send cached
 * message JSON without parsing and serialising it again.
 */
export class RawJson {
  /** The text whole, or as pieces (separators included) kept apart until the body is joined. */
  protected constructor(protected readonly parts: string | string[]) {}

  static of(json: string): RawJson {
    return new RawJson(json);
  }

  /**
   * JSON given as pieces to be joined as they are (separators included): each piece stays a
   * flat string until the body's one join, where a piece made by concatenation would be one
   * more string per piece for the join to flatten.
   */
  static pieces(parts: string[]): RawJson {
    return new RawJson(parts);
  }

  get json(): string {
    return typeof this.parts === 'string' ? this.parts : this.parts.join('');
  }

  /** Appends its text to `out` without joining it first. */
  appendTo(out: string[]): void {
    if (typeof this.parts === 'string') out.push(this.parts);
    else for (const part of this.parts) out.push(part);
  }
}

/**
 * An object's fields as JSON, without its braces (`"a":1,"b":2`, or nothing): a top-level value
 * that stringifyWithRaw writes in place of its own key, as if the fields were the body's own.
 * /register keeps the sections that are the same for every user of a realm so
 * (api/events/register-shared.ts), and serialises its whole state so before it waits for its
 * queue's commit.
 */
export class RawFields extends RawJson {
  /** `object`'s fields, whose values may be RawJson or RawFields in turn. */
  static fields(object: Record<string, unknown>): RawFields {
    const out: string[] = [];
    appendFields(object, out);
    return new RawFields(out.length === 1 ? out[0] : out);
  }

  /** The same as one string: for fields kept and written many times. */
  static flat(object: Record<string, unknown>): RawFields {
    const out: string[] = [];
    appendFields(object, out);
    return new RawFields(out.join(''));
  }

  get empty(): boolean {
    return this.parts.length === 0;
  }
}

/** Appends the pieces of `body`'s fields, comma-separated, without braces. */
function appendFields(body: Record<string, unknown>, out: string[]): void {
  let first = true;
  for (const [key, value] of Object.entries(body)) {
    if (value === undefined) continue;
    if (value instanceof RawFields) {
      if (value.empty) continue;
      if (!first) out.push(',');
      first = false;
      value.appendTo(out);
      continue;
    }
    out.push(`${first ? '' : ','}${JSON.stringify(key)}:`);
    first = false;
    if (value instanceof RawJson) value.appendTo(out);
    else out.push(JSON.stringify(value));
  }
}

/**
 * JSON.stringify of a flat object whose top-level values may be RawJson, or RawFields (whose key
 * is not written). The body is one join of every piece: a page of 100 messages (60 KB) joined as
 * its array, then again as the body, was two copies more per request, which P5's profile showed.
 */
export function stringifyWithRaw(body: Record<string, unknown>): string {
  return stringifyPieces(body).join('');
}

/**
 * stringifyWithRaw's pieces, not joined: what the shard encodes one by one into its arena
 * (lib/body-arena.ts), where the join was one more copy of the body (a 382 KB /register's).
 */
export function stringifyPieces(body: Record<string, unknown>): string[] {
  const out: string[] = ['{'];
  appendFields(body, out);
  out.push('}');
  return out;
}
