import type { Kind } from './read.js';

/**
 * The fields the import reads from each table of the reference's export, with their kinds; a
 * row that does not have them is refused (file, table and row index, field). Fields not listed
 * are ignored, so exports from other versions of the reference, with more fields, import too.
 */
export const TABLE_FIELDS: Record<string, Record<string, Kind>> = {
  zerver_realm: { id: 'int', name: 'str', description: 'str?', date_created: 'num?', deactivated: 'bool?' },
  zerver_userprofile: {
    id: 'int',
    email: 'str',
    delivery_email: 'str?',
    full_name: 'str',
    role: 'int',
    is_active: 'bool',
    is_bot: 'bool',
    bot_type: 'int?',
    bot_owner: 'int?',
    date_joined: 'num?',
    timezone: 'str?',
    avatar_source: 'str?',
    avatar_version: 'int?',
    password: 'str?',
  },
  zerver_userprofile_crossrealm: { id: 'int', email: 'str' },
  zerver_stream: {
    id: 'int',
    name: 'str',
    description: 'str?',
    invite_only: 'bool',
    history_public_to_subscribers: 'bool?',
    is_web_public: 'bool?',
    deactivated: 'bool?',
    date_created: 'num?',
    creator: 'int?',
    message_retention_days: 'int?',
    folder: 'int?',
  },
  zerver_recipient: { id: 'int', type: 'int', type_id: 'int' },
  zerver_subscription: { id: 'int', user_profile: 'int', recipient: 'int', active: 'bool', color: 'str?', is_muted: 'bool?', pin_to_top: 'bool?' },
  zerver_huddle: { id: 'int' },
  zerver_usergroup: { id: 'int' },
  zerver_namedusergroup: { usergroup_ptr: 'int', name: 'str', description: 'str?', is_system_group: 'bool', deactivated: 'bool?', date_created: 'num?', creator: 'int?' },
  zerver_usergroupmembership: { user_group: 'int', user_profile: 'int' },
  zerver_groupgroupmembership: { supergroup: 'int', subgroup: 'int' },
  zerver_defaultstream: { stream: 'int' },
  zerver_realmdomain: { domain: 'str', allow_subdomains: 'bool' },
  zerver_realmfilter: { id: 'int', pattern: 'str', url_template: 'str', order: 'int?' },
  zerver_realmplayground: { id: 'int', name: 'str', pygments_language: 'str', url_template: 'str' },
  zerver_realmemoji: { id: 'int', name: 'str', file_name: 'str?', author: 'int?', deactivated: 'bool', is_animated: 'bool?' },
  zerver_customprofilefield: { id: 'int', name: 'str', hint: 'str?', field_type: 'int', field_data: 'str?', order: 'int?' },
  zerver_customprofilefieldvalue: { user_profile: 'int', field: 'int', value: 'str', rendered_value: 'str?' },
  zerver_usertopic: { user_profile: 'int', stream: 'int', topic_name: 'str', visibility_policy: 'int', last_updated: 'num?' },
  zerver_muteduser: { user_profile: 'int', muted_user: 'int', date_muted: 'num?' },
  zerver_userstatus: { user_profile: 'int', status_text: 'str?', emoji_name: 'str?', emoji_code: 'str?', reaction_type: 'str?', timestamp: 'num?' },
  zerver_alertword: { user_profile: 'int', word: 'str' },
  zerver_reaction: { message: 'int', user_profile: 'int', emoji_name: 'str', emoji_code: 'str', reaction_type: 'str' },
  zerver_submessage: { id: 'int', message: 'int', sender: 'int', msg_type: 'str', content: 'str' },
  zerver_scheduledmessage: { id: 'int', sender: 'int', recipient: 'int', subject: 'str', content: 'str', scheduled_timestamp: 'num', delivered: 'bool', delivery_type: 'int?', failed: 'bool?', stream: 'int?' },
  zerver_savedsnippet: { id: 'int', user_profile: 'int', title: 'str', content: 'str', date_created: 'num?' },
  zerver_navigationview: { user: 'int', fragment: 'str', is_pinned: 'bool', name: 'str?' },
  zerver_channelfolder: { id: 'int', name: 'str', description: 'str?', date_created: 'num?', creator: 'int?', is_archived: 'bool?', order: 'int?' },
  zerver_client: { id: 'int', name: 'str' },
  zerver_draft: { user_profile: 'int', recipient: 'int?', topic: 'str?', content: 'str', last_edit_time: 'num?' },
  zerver_botstoragedata: { bot_profile: 'int', key: 'str', value: 'str' },
  zerver_botconfigdata: { bot_profile: 'int', key: 'str', value: 'str' },
  zerver_service: { user_profile: 'int', name: 'str', base_url: 'str', token: 'str?', interface: 'int?' },
};

export const MESSAGE_FIELDS: Record<string, Kind> = {
  id: 'int',
  sender: 'int',
  recipient: 'int',
  subject: 'str',
  content: 'str',
  rendered_content: 'str?',
  date_sent: 'num',
  sending_client: 'int?',
  last_edit_time: 'num?',
  edit_history: 'str?',
  has_attachment: 'bool?',
  has_image: 'bool?',
  has_link: 'bool?',
};

export const USERMESSAGE_FIELDS: Record<string, Kind> = { user_profile: 'int', message: 'int', flags_mask: 'int' };

export const ATTACHMENT_FIELDS: Record<string, Kind> = {
  id: 'int',
  file_name: 'str',
  path_id: 'str',
  owner: 'int',
  size: 'int',
  create_time: 'num?',
  content_type: 'str?',
  messages: 'ints',
};

/** The reference's Recipient.type values. */
export const RECIPIENT = { personal: 1, stream: 2, huddle: 3 } as const;

/** The reference's UserMessage flag bits beyond those Stoa shows (FLAG in model/message.ts). */
export const IS_PRIVATE = 2048;
