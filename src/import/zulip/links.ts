/**
 * Links inside imported text that name old ids: uploads (`/user_uploads/<path id>`, thumbnails
 * included), narrows (`#narrow/channel/12-general/near/345`, `dm/5,7-group`...), message links
 * in the `#**channel>topic@345**` syntax, custom emoji images, and in rendered HTML the
 * data-user-id, data-stream-id and data-user-group-id of mentions. The reference's own import
 * rewrites uploads and mention attributes; narrows are rewritten too, so that links between
 * messages keep leading where they led.
 */
export interface IdLookup {
  user(old: number): number | null;
  stream(old: number): number | null;
  group(old: number): number | null;
  message(old: number): number | null;
}

const NARROW = /#narrow\/[^\s)"'<>\]]*/g;
const UPLOAD = /\/user_uploads\/(?:thumbnail\/)?(\d+\/[^\s)"'<>\]?#]+)/g;
const TOPIC_LINK = /#\*\*([^*\n]+?)@(\d+)\*\*/g;
/** `@**Name|id**`, `@_**Name|id**`: a mention naming the user's id. */
const MENTION_ID = /@(_?)\*\*([^*\n|]+)\|(\d+)\*\*/g;
const DATA_ID = /data-(user|stream|user-group)-id="(\d+)"/g;
const CHANNEL_OPS = new Set(['channel', 'stream']);
const MESSAGE_OPS = new Set(['near', 'id', 'with']);
const USER_OPS = new Set(['dm', 'pm-with', 'dm-including', 'group-pm-with', 'sender']);

export class Rewriter {
  constructor(
    private readonly ids: IdLookup,
    /** Old upload path id -> new one. */
    private readonly uploads: Map<string, string>,
    /** Old custom emoji image path (`/user_avatars/<realm>/emoji/images/<file>`) -> new one. */
    private readonly emojiPaths: Map<string, string>,
  ) {}

  /** A narrow fragment (`#narrow/...` or `narrow/...`) with its ids mapped. */
  fragment(fragment: string): string {
    const parts = fragment.split('/');
    const start = parts[0] === '#narrow' || parts[0] === 'narrow' ? 1 : 0;
    for (let i = start; i + 1 < parts.length; i += 2) {
      const op = parts[i].replace(/^-/, '');
      const operand = parts[i + 1];
      if (CHANNEL_OPS.has(op)) parts[i + 1] = operand.replace(/^(\d+)(?=-|$)/, (m) => String(this.ids.stream(Number(m)) ?? m));
      else if (MESSAGE_OPS.has(op)) parts[i + 1] = operand.replace(/^\d+$/, (m) => String(this.ids.message(Number(m)) ?? m));
      else if (USER_OPS.has(op)) parts[i + 1] = operand.replace(/^[\d,]+(?=-|$)/, (m) => m.split(',').map((id) => String(this.ids.user(Number(id)) ?? id)).join(','));
    }
    return parts.join('/');
  }

  private uploadsIn(text: string): string {
    if (!text.includes('/user_uploads/')) return text;
    return text.replace(UPLOAD, (all, path: string) => {
      // A thumbnail's URL carries the path and then its size (`.../name.png/840x560.webp`).
      for (const [old, now] of this.candidates(path)) return all.replace(old, now);
      return all;
    });
  }

  private *candidates(path: string): Generator<[string, string]> {
    const parts = path.split('/');
    for (let n = parts.length; n >= 4; n--) {
      const old = parts.slice(0, n).join('/');
      const now = this.uploads.get(old) ?? this.uploads.get(safeDecode(old));
      if (now) yield [old, now];
    }
  }

  private common(text: string): string {
    let out = this.uploadsIn(text);
    if (out.includes('#narrow/')) out = out.replace(NARROW, (f) => this.fragment(f));
    return out;
  }

  /** Markdown content (and drafts, scheduled messages). */
  content(text: string): string {
    let out = this.common(text);
    if (out.includes('@')) {
      out = out.replace(TOPIC_LINK, (all, target: string, id: string) => `#**${target}@${this.ids.message(Number(id)) ?? id}**`);
      out = out.replace(MENTION_ID, (all, silent: string, name: string, id: string) => `@${silent}**${name}|${this.ids.user(Number(id)) ?? id}**`);
    }
    return out;
  }

  /** Rendered HTML. */
  rendered(html: string): string {
    let out = this.common(html);
    if (out.includes('data-')) {
      out = out.replace(DATA_ID, (all, kind: string, id: string) => {
        const old = Number(id);
        const now = kind === 'user' ? this.ids.user(old) : kind === 'stream' ? this.ids.stream(old) : this.ids.group(old);
        return now === null ? all : `data-${kind}-id="${now}"`;
      });
    }
    if (out.includes('/emoji/images/') && this.emojiPaths.size > 0) {
      out = out.replace(/\/user_avatars\/\d+\/emoji\/images\/[^"'\s]+/g, (path) => this.emojiPaths.get(path) ?? path);
    }
    return out;
  }
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
