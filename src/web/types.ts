/**
 * The shapes of the API the web app reads, as the Zulip API documents them (only the fields it
 * uses). Written here, not imported from the server: the app is a client like any other.
 */
export interface Reaction {
  emoji_name: string;
  emoji_code: string;
  reaction_type: 'unicode_emoji' | 'realm_emoji' | 'zulip_extra_emoji';
  user_id: number;
}

export interface DisplayRecipient {
  id: number;
  email: string;
  full_name: string;
}

export interface Submessage {
  id: number;
  msg_type: string;
  content: string;
  sender_id: number;
}

export interface Message {
  id: number;
  sender_id: number;
  sender_full_name: string;
  sender_email: string;
  avatar_url: string | null;
  type: 'stream' | 'private';
  stream_id?: number;
  display_recipient: string | DisplayRecipient[];
  subject: string;
  content: string;
  timestamp: number;
  flags: string[];
  reactions: Reaction[];
  last_edit_timestamp?: number;
  last_moved_timestamp?: number;
  match_content?: string;
  match_subject?: string;
  submessages?: Submessage[];
}

export interface User {
  user_id: number;
  email: string;
  full_name: string;
  avatar_url: string | null;
  is_active: boolean;
  is_bot: boolean;
  role: number;
  is_admin?: boolean;
  is_owner?: boolean;
  timezone?: string;
}

export interface Subscription {
  stream_id: number;
  name: string;
  description: string;
  rendered_description?: string;
  color: string;
  is_muted: boolean;
  invite_only: boolean;
  pin_to_top?: boolean;
  is_archived?: boolean;
  /** null: the person's default for channels (client capability notification_settings_null). */
  desktop_notifications?: boolean | null;
  audible_notifications?: boolean | null;
  push_notifications?: boolean | null;
  email_notifications?: boolean | null;
  wildcard_mentions_notify?: boolean | null;
}

export interface Stream {
  stream_id: number;
  name: string;
  description: string;
  invite_only: boolean;
  is_archived?: boolean;
}

export interface RealmEmoji {
  id: string;
  name: string;
  source_url: string;
  deactivated: boolean;
}

export interface UnreadMsgs {
  count: number;
  pms: { other_user_id: number; unread_message_ids: number[] }[];
  streams: { stream_id: number; topic: string; unread_message_ids: number[] }[];
  huddles: { user_ids_string: string; unread_message_ids: number[] }[];
  mentions: number[];
}

export interface ServerEvent {
  id: number;
  type: string;
  op?: string;
  [field: string]: any;
}

export interface Draft {
  id?: number;
  type: 'stream' | 'private' | '';
  to: number[];
  topic: string;
  content: string;
  timestamp?: number;
}
