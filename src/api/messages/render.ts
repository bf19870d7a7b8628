import type { RealmState } from '../../model/realm-state.js';
import type { UserRecord } from '../../model/types.js';

/**
 * Message rendering as the message code needs it: HTML plus what the content mentions. The
 * Zulip-flavoured Markdown renderer (issue 4) plugs in here through `useRenderer`; until it
 * does, `basicRenderer` escapes the text into paragraphs and recognises user and wildcard
 * mentions, which is what the message flags depend on.
 */
export interface Rendered {
  html: string;
  mentionedUserIds: number[];
  mentionedGroupIds: number[];
  wildcards: { stream: boolean; topic: boolean };
  hasLink: boolean;
  hasImage: boolean;
  hasAttachment: boolean;
  isMeMessage: boolean;
}

export interface RenderScope {
  realm: RealmState;
  sender: UserRecord;
}

export type Renderer = (content: string, scope: RenderScope) => Rendered;

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

const STREAM_WILDCARDS = new Set(['all', 'everyone', 'channel', 'stream']);

export const basicRenderer: Renderer = (content, { realm }) => {
  const mentioned = new Set<number>();
  const wildcards = { stream: false, topic: false };
  const byName = new Map<string, UserRecord>();
  for (const u of realm.users.values()) if (u.isActive) byName.set(u.fullName.toLowerCase(), u);
  const inline = (text: string) =>
    escapeHtml(text).replace(/@(_?)\*\*([^*]+?)\*\*/g, (whole, silent: string, rawName: string) => {
      const [name, idText] = rawName.split('|');
      const lower = name.toLowerCase();
      if (!silent && STREAM_WILDCARDS.has(lower)) {
        wildcards.stream = true;
        return `<span class="user-mention" data-user-id="*">@${name}</span>`;
      }
      if (!silent && lower === 'topic') {
        wildcards.topic = true;
        return `<span class="topic-mention">@${name}</span>`;
      }
      const user = idText ? realm.users.get(Number(idText)) : byName.get(lower);
      if (!user) return whole;
      if (!silent) mentioned.add(user.id);
      return `<span class="user-mention${silent ? ' silent' : ''}" data-user-id="${user.id}">${silent ? '' : '@'}${escapeHtml(user.fullName)}</span>`;
    });
  const paragraphs = content.split(/\n{2,}/).filter((p) => p.trim() !== '');
  const html = paragraphs.map((p) => `<p>${inline(p).replace(/\n/g, '<br>\n')}</p>`).join('\n');
  return {
    html,
    mentionedUserIds: [...mentioned],
    mentionedGroupIds: [],
    wildcards,
    hasLink: /https?:\/\/\S/.test(content),
    hasImage: false,
    hasAttachment: /\/user_uploads\//.test(content),
    isMeMessage: /^\/me( |$)/.test(content),
  };
};

let renderer: Renderer = basicRenderer;

export function useRenderer(r: Renderer): void {
  renderer = r;
}

export function renderMessage(content: string, scope: RenderScope): Rendered {
  return renderer(content, scope);
}

/** Links from the realm's linkifiers that match a topic (none are configured yet). */
export function topicLinks(_realm: RealmState, _topic: string): { text: string; url: string }[] {
  return [];
}
