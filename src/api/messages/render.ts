import { renderMarkdown, type RenderContext, type RenderResult } from '../../markdown/index.js';
import { topicLinks as linkifyTopic } from '../../markdown/linkifiers.js';
import { groupDisplayName } from '../../model/groups.js';
import type { RealmState } from '../../model/realm-state.js';
import { realmSetting } from '../../model/realm-settings.js';
import type { UserRecord } from '../../model/types.js';
import { renderRealmEmoji } from '../../model/realm-emoji.js';
import { hasMetadataAccess } from '../streams/access.js';
import { EMPTY_TOPIC_DISPLAY_NAME } from '../../model/message.js';

/**
 * Message rendering as the message code needs it: the Zulip-flavoured Markdown renderer
 * (src/markdown) with the lookups of the sender's realm: who can be mentioned, which channels
 * the sender may link, the realm's linkifiers and defaults.
 */
export type Rendered = RenderResult;

export interface RenderScope {
  realm: RealmState;
  /** Null for text nobody sends (a channel created by the system): only public channels link. */
  sender: UserRecord | null;
  /** Message content: find who has an alert word in it (RenderResult.alertedUserIds). */
  alertWords?: boolean;
}

function contextFor({ realm, sender, alertWords }: RenderScope): RenderContext {
  const matcher = alertWords ? realm.people.alertMatcher() : null;
  const mentionable = (u: UserRecord | null | undefined) => (u ? { id: u.id, fullName: u.fullName, isActive: u.isActive } : undefined);
  return {
    userByFullName: (name) => mentionable(realm.userByFullName(name)),
    userById: (id) => mentionable(realm.users.get(id)),
    groupByName: (name) => {
      const key = name.toLowerCase();
      for (const g of realm.groups.values()) if (g.name.toLowerCase() === key) return { id: g.id, name: groupDisplayName(g), deactivated: g.deactivated };
      return undefined;
    },
    streamByName: (name) => {
      const stream = realm.streamByName(name);
      const visible = stream && (sender ? hasMetadataAccess(realm, sender, stream) : !stream.inviteOnly);
      return visible ? { id: stream!.id, name: stream!.name } : undefined;
    },
    realmUrl: realm.url,
    linkifiers: linkifiers(realm),
    translateEmoticons: sender?.settings.translate_emoticons === true,
    realmEmoji: renderRealmEmoji(realm),
    defaultCodeBlockLanguage: String(realmSetting(realm, 'default_code_block_language') ?? ''),
    emptyTopicDisplayName: EMPTY_TOPIC_DISPLAY_NAME,
    alertWords: matcher && !matcher.empty ? (text) => matcher.match(text) : undefined,
  };
}

export function renderMessage(content: string, scope: RenderScope): Rendered {
  return renderMarkdown(content, contextFor(scope));
}

/** The realm's linkifiers, in the order they apply (api/linkifiers/). */
function linkifiers(realm: RealmState): RenderContext['linkifiers'] {
  return (realm.realm.linkifiers ?? []).map(({ pattern, urlTemplate }) => ({ pattern, urlTemplate }));
}

interface TopicLinks {
  linkifiers: unknown;
  topic: string;
  links: { text: string; url: string }[];
}

/**
 * Each realm's last topic and its links. A send shapes its message for each kind of client, and
 * a topic is sent to many times in a row; the web-link pattern (every TLD) run over the topic's
 * words each time was a tenth of the commit's time on the shard. The realm's linkifiers are
 * replaced, never changed in place (api/linkifiers/actions.ts), so their array says whether the
 * links still hold.
 */
const lastTopic = new WeakMap<RealmState, TopicLinks>();

/** The reference's topic_links: linkifier matches and URLs in a topic. */
export function topicLinks(realm: RealmState, topic: string): { text: string; url: string }[] {
  const list = realm.realm.linkifiers;
  let last = lastTopic.get(realm);
  if (!last || last.topic !== topic || last.linkifiers !== list) {
    last = { linkifiers: list, topic, links: linkifyTopic(topic, linkifiers(realm)) };
    lastTopic.set(realm, last);
  }
  // Copies: the caller's event or view owns its links.
  return last.links.map((link) => ({ text: link.text, url: link.url }));
}
