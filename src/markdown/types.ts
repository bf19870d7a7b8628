/** The renderer's inputs and outputs; see index.ts for the entry points. */

export interface MentionableUser {
  id: number;
  fullName: string;
  /** a deactivated user is still linked, but silently, as the reference does */
  isActive?: boolean;
}

export interface MentionableGroup {
  id: number;
  /** the name to show (for system groups, the reference shows a display name) */
  name: string;
  /** a deactivated group is still linked, but silently */
  deactivated?: boolean;
}

export interface RenderContext {
  // lookups in the sender's realm; return undefined when unknown
  /** case-insensitive; undefined when several users share the name (they need @**Name|id**) */
  userByFullName(name: string): MentionableUser | undefined;
  userById(id: number): MentionableUser | undefined;
  groupByName(name: string): MentionableGroup | undefined;
  /** only channels the sender can see */
  streamByName(name: string): { id: number; name: string } | undefined;
  /** e.g. http://localhost:9991 */
  realmUrl: string;
  linkifiers: { pattern: string; urlTemplate: string }[];
  translateEmoticons?: boolean;
  realmEmoji?: Record<string, { id: string; sourceUrl: string; deactivated?: boolean }>;
  /** the realm's default_code_block_language, used for fences without a language */
  defaultCodeBlockLanguage?: string;
  /** the realm's realm_empty_topic_display_name, shown for links to the empty topic */
  emptyTopicDisplayName?: string;
  /**
   * Who has an alert word in the text, as the reference finds them: in the content after the
   * fenced code and math blocks are set aside (RenderResult.alertedUserIds)
   */
  alertWords?: (text: string) => Iterable<number>;
}

export interface RenderResult {
  html: string;
  /** users mentioned so that they get the mentioned flag; silent mentions are not included */
  mentionedUserIds: number[];
  mentionedGroupIds: number[];
  /** @**all**, @**everyone**, @**channel**, @**stream** -> stream; @**topic** -> topic */
  wildcards: { stream: boolean; topic: boolean };
  hasLink: boolean;
  hasImage: boolean;
  hasAttachment: boolean;
  /** path ids of the realm uploads the message links to (candidates for attachment claims) */
  attachmentPathIds: string[];
  isMeMessage: boolean;
  /** users with an alert word in the message (empty unless the context asked, see alertWords) */
  alertedUserIds: number[];
}

/** What one render collects while it runs. */
export interface RenderState {
  ctx: RenderContext;
  mentionedUserIds: Set<number>;
  mentionedGroupIds: Set<number>;
  wildcards: { stream: boolean; topic: boolean };
  deadline: number;
}
