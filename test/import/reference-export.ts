import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import sharp from 'sharp';

/**
 * A reference-format export (zerver/lib/export.py's layout and conventions: realm.json with
 * every table, messages-NNNNNN.json with zerver_message and zerver_usermessage, attachment.json,
 * uploads/avatars/emoji/realm_icons with records.json) of a small organization that uses every
 * table Stoa imports. Field names and shapes follow model_to_dict: foreign keys under the
 * field's name, dates as float seconds, flags as flags_mask.
 *
 * The three password hashes were made by Python's argon2-cffi (Django's Argon2PasswordHasher
 * parameters), hashlib.pbkdf2_hmac and bcrypt (Django's BCryptSHA256PasswordHasher), so the
 * import's verification is checked against other implementations than the one it uses.
 */
export const PASSWORDS = {
  owner: { email: 'iago@acme.test', password: 'old-password-1', hash: 'argon2$argon2id$v=19$m=102400,t=2,p=8$D8gx01y5Iwnlfmm/BOX06Q$ioejCqGdVtMHeF/lkGrYpw' },
  admin: { email: 'hamlet@acme.test', password: 'old-password-2', hash: 'pbkdf2_sha256$870000$Xk3sN0vQm2LpYt8RwZa1Bc$IL8ITBXJSIFYUmxcbh2+YUJ/cukCXQ7wZBhVI0KmOKE=' },
  member: { email: 'cordelia@acme.test', password: 'old-password-3', hash: 'bcrypt_sha256$$2b$12$KD1deNV4sCIQCyJNxlkkYeMnDB343ZwhHjyFdg1a7ZgtxtN9HuoFO' },
};

const T0 = 1_700_000_000;
const R = 2;
const SYSTEM = ['role:internet', 'role:owners', 'role:administrators', 'role:moderators', 'role:fullmembers', 'role:members', 'role:everyone', 'role:nobody'];
const group = (name: string) => SYSTEM.indexOf(name) + 1;

function user(id: number, email: string, fullName: string, role: number, extra: Record<string, unknown> = {}) {
  return {
    id,
    realm: R,
    email,
    delivery_email: email,
    full_name: fullName,
    role,
    is_active: true,
    is_bot: false,
    bot_type: null,
    bot_owner: null,
    is_mirror_dummy: false,
    date_joined: T0 - 86400 * 30 + id,
    timezone: 'Europe/Paris',
    avatar_source: 'G',
    avatar_version: 1,
    twenty_four_hour_time: false,
    default_sending_stream: null,
    default_events_register_stream: null,
    default_all_public_streams: false,
    ...extra,
  };
}

const stream = (id: number, name: string, extra: Record<string, unknown> = {}) => ({
  id,
  realm: R,
  name,
  description: `About ${name}`,
  rendered_description: `<p>About ${name}</p>`,
  invite_only: false,
  history_public_to_subscribers: true,
  is_web_public: false,
  deactivated: false,
  date_created: T0 - 86400 * 20,
  creator: 10,
  message_retention_days: null,
  folder: null,
  recipient: 200 + id - 20,
  can_add_subscribers_group: group('role:nobody'),
  can_administer_channel_group: group('role:nobody'),
  can_remove_subscribers_group: group('role:administrators'),
  can_send_message_group: group('role:everyone'),
  can_subscribe_group: group('role:nobody'),
  ...extra,
});

const msg = (id: number, sender: number, recipient: number, subject: string, content: string, rendered: string, extra: Record<string, unknown> = {}) => ({
  id,
  sender,
  recipient,
  realm: R,
  subject,
  content,
  rendered_content: rendered,
  rendered_content_version: 1,
  date_sent: T0 + (id - 500) * 60 + 0.25,
  sending_client: 1,
  last_edit_time: null,
  edit_history: null,
  has_attachment: false,
  has_image: false,
  has_link: false,
  is_channel_message: recipient >= 200 && recipient < 300,
  type: 1,
  ...extra,
});

const READ = 1;
const STARRED = 2;
const MENTIONED = 8;
const HISTORICAL = 1024;
const PRIVATE = 2048;

/** What the test compares the imported organization with. */
export const EXPECTED = {
  realmName: 'Acme',
  users: ['iago@acme.test', 'hamlet@acme.test', 'cordelia@acme.test', 'guest@acme.test', 'helper-bot@acme.test', 'gone@acme.test', 'ghost@acme.test'],
  channels: ['general', 'secret', 'old'],
  messages: 9,
  uploadName: 'notes.txt',
  uploadBytes: 'the notes\n',
};

export async function buildReferenceExport(dir: string, opts: { extraMessages?: number } = {}): Promise<void> {
  const png = await sharp({ create: { width: 64, height: 64, channels: 4, background: { r: 200, g: 30, b: 30, alpha: 1 } } }).png().toBuffer();
  const put = (path: string, data: unknown) => {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), typeof data === 'string' || Buffer.isBuffer(data) ? data : JSON.stringify(data, null, 2));
  };
  const users = [
    user(10, 'iago@acme.test', 'Iago', 100, { password: PASSWORDS.owner.hash, twenty_four_hour_time: true }),
    user(11, 'hamlet@acme.test', 'Hamlet', 200, { password: PASSWORDS.admin.hash, avatar_source: 'U', avatar_version: 3 }),
    user(12, 'cordelia@acme.test', 'Cordelia', 400, { password: PASSWORDS.member.hash, emojiset: 'text', left_side_userlist: true }),
    user(13, 'guest@acme.test', 'Guest', 600, { password: '!unusable' }),
    user(14, 'helper-bot@acme.test', 'Helper', 400, { is_bot: true, bot_type: 3, bot_owner: 10, default_sending_stream: 20 }),
    user(15, 'gone@acme.test', 'Gone', 400, { is_active: false }),
  ];
  const dummies = [user(16, 'ghost@acme.test', 'Ghost', 400, { is_active: false, is_mirror_dummy: true })];
  const recipients = [
    ...[10, 11, 12, 13, 14, 15, 16].map((u) => ({ id: 1000 + u, type: 1, type_id: u })),
    { id: 200, type: 2, type_id: 20 },
    { id: 201, type: 2, type_id: 21 },
    { id: 202, type: 2, type_id: 22 },
    { id: 300, type: 3, type_id: 30 },
  ];
  let subId = 1;
  const sub = (userId: number, recipient: number, extra: Record<string, unknown> = {}) => ({
    id: subId++,
    user_profile: userId,
    recipient,
    active: true,
    is_user_active: true,
    color: '#76ce90',
    is_muted: false,
    pin_to_top: false,
    desktop_notifications: null,
    audible_notifications: null,
    push_notifications: null,
    email_notifications: null,
    wildcard_mentions_notify: null,
    ...extra,
  });
  const subscriptions = [
    ...[10, 11, 12, 13, 14, 15, 16].map((u) => sub(u, 1000 + u)),
    sub(10, 200, { pin_to_top: true }),
    sub(11, 200, { color: '#e79ab5', desktop_notifications: true }),
    sub(12, 200),
    sub(13, 200),
    sub(10, 201),
    sub(11, 201, { is_muted: true }),
    sub(11, 202),
    sub(12, 202, { active: false, color: '#a6c7e5' }),
    sub(10, 300),
    sub(11, 300),
    sub(12, 300),
  ];
  const usergroups = [...SYSTEM.map((_, i) => ({ id: i + 1, realm: R })), { id: 9, realm: R }, { id: 10, realm: R }];
  const named = [
    ...SYSTEM.map((name, i) => ({ usergroup_ptr: i + 1, realm_for_sharding: R, name, description: name, is_system_group: true, deactivated: false, date_created: T0 - 86400 * 30, creator: null, can_add_members_group: group('role:nobody'), can_join_group: group('role:nobody'), can_leave_group: group('role:nobody'), can_manage_group: group('role:nobody'), can_mention_group: group('role:nobody'), can_remove_members_group: group('role:nobody') })),
    { usergroup_ptr: 9, realm_for_sharding: R, name: 'support', description: 'The support team', is_system_group: false, deactivated: false, date_created: T0 - 86400 * 10, creator: 10, can_add_members_group: group('role:administrators'), can_join_group: group('role:members'), can_leave_group: group('role:everyone'), can_manage_group: 10, can_mention_group: group('role:everyone'), can_remove_members_group: group('role:administrators') },
  ];
  const realm = {
    id: R,
    string_id: 'acme',
    name: 'Acme',
    description: 'Imported organization',
    date_created: T0 - 86400 * 40,
    deactivated: false,
    allow_message_editing: false,
    waiting_period_threshold: 3,
    message_content_edit_limit_seconds: 1200,
    message_edit_history_visibility_policy: 1,
    video_chat_provider: 0,
    new_stream_announcements_stream: 20,
    signup_announcements_stream: 20,
    zulip_update_announcements_stream: null,
    moderation_request_channel: 21,
    icon_source: 'U',
    icon_version: 2,
    logo_source: 'D',
    night_logo_source: 'D',
    emails_restricted_to_domains: false,
    can_create_groups: 10,
    can_add_custom_emoji_group: 9,
    can_access_all_users_group: group('role:everyone'),
    can_delete_any_message_group: group('role:administrators'),
  };
  const messages = [
    msg(500, 10, 200, 'welcome', 'Hello @**Cordelia**', '<p>Hello <span class="user-mention" data-user-id="12">@Cordelia</span></p>'),
    msg(501, 12, 200, 'welcome', 'Notes: [notes.txt](/user_uploads/2/ab/Xy12AbCdEfGhIjKlMnOpQrSt/notes.txt)', '<p>Notes: <a href="/user_uploads/2/ab/Xy12AbCdEfGhIjKlMnOpQrSt/notes.txt">notes.txt</a></p>', { has_attachment: true, has_link: true }),
    msg(502, 11, 200, 'links', 'See [this](#narrow/channel/20-general/topic/welcome/near/500) and #**general>welcome@501**', '<p>See <a href="#narrow/channel/20-general/topic/welcome/near/500">this</a> and <a class="message-link" href="/#narrow/channel/20-general/topic/welcome/near/501">#general &gt; welcome @ 💬</a></p>', { has_link: true }),
    msg(503, 10, 201, 'plans', 'The secret plan, revised', '<p>The secret plan, revised</p>', {
      last_edit_time: T0 + 3 * 60 + 30,
      edit_history: JSON.stringify([{ user_id: 10, timestamp: T0 + 3 * 60 + 30, prev_content: 'The secret plan', prev_rendered_content: '<p>The secret plan</p>', prev_rendered_content_version: 1 }]),
    }),
    msg(504, 10, 1012, '', 'A private word', '<p>A private word</p>'),
    msg(505, 11, 300, '', 'Group chat in <span>#**secret**</span>', '<p>Group chat in <a class="stream" data-stream-id="21" href="/#narrow/channel/21-secret">#secret</a></p>'),
    msg(506, 10, 200, 'poll', '/poll Lunch?\nPizza\nSalad', '<p>/poll Lunch?<br>\nPizza<br>\nSalad</p>'),
    msg(507, 1, 200, 'moved', 'This topic was moved here from #**secret>plans** by @_**Iago|10**.', '<p>This topic was moved here from <a class="stream-topic" data-stream-id="21" href="/#narrow/channel/21-secret/topic/plans">#secret &gt; plans</a> by <span class="user-mention silent" data-user-id="10">Iago</span>.</p>'),
    msg(508, 11, 202, 'archive', 'Old news with :party:', '<p>Old news with <img alt=":party:" class="emoji" src="/user_avatars/2/emoji/images/1.png" title="party"></p>'),
  ];
  let umId = 1;
  const um = (userId: number, message: number, flags: number) => ({ id: umId++, user_profile: userId, message, flags_mask: flags });
  const usermessages = [
    um(10, 500, READ), um(11, 500, READ), um(12, 500, READ | MENTIONED | STARRED), um(13, 500, 0),
    um(10, 501, READ), um(11, 501, 0), um(12, 501, READ), um(13, 501, 0),
    um(10, 502, READ), um(11, 502, READ), um(12, 502, 0), um(13, 502, 0),
    um(10, 503, READ), um(11, 503, 0),
    um(10, 504, READ | PRIVATE), um(12, 504, PRIVATE),
    um(10, 505, READ | PRIVATE), um(11, 505, READ | PRIVATE), um(12, 505, PRIVATE),
    um(10, 506, READ), um(11, 506, READ), um(12, 506, READ), um(13, 506, READ),
    um(10, 507, READ), um(11, 507, READ), um(12, 507, READ), um(13, 507, READ),
    um(11, 508, READ), um(12, 508, READ | STARRED | HISTORICAL),
  ];
  const extra = opts.extraMessages ?? 0;
  const files: { zerver_message: unknown[]; zerver_usermessage: unknown[] }[] = [{ zerver_message: messages, zerver_usermessage: usermessages }];
  for (let n = 0; n < extra; n += 1000) {
    const chunk = { zerver_message: [] as unknown[], zerver_usermessage: [] as unknown[] };
    for (let i = n; i < Math.min(extra, n + 1000); i++) {
      const id = 1000 + i;
      chunk.zerver_message.push(msg(id, 10 + (i % 3), 200, `bulk ${i % 10}`, `Bulk message number ${i}`, `<p>Bulk message number ${i}</p>`, { date_sent: T0 + 10_000 + i }));
      for (const u of [10, 11, 12, 13]) chunk.zerver_usermessage.push(um(u, id, u === 10 + (i % 3) || i < extra - 5 ? READ : 0));
    }
    files.push(chunk);
  }
  const tables = {
    zerver_realm: [realm],
    zerver_userprofile: users,
    zerver_userprofile_mirrordummy: dummies,
    zerver_userprofile_crossrealm: [{ id: 1, email: 'notification-bot@zulip.com', recipient_id: 1001 }],
    zerver_stream: [stream(20, 'general'), stream(21, 'secret', { invite_only: true, history_public_to_subscribers: false, folder: 1, can_send_message_group: 10 }), stream(22, 'old', { deactivated: true })],
    zerver_recipient: recipients,
    zerver_subscription: subscriptions,
    zerver_huddle: [{ id: 30, huddle_hash: 'x', group_size: 3 }],
    zerver_usergroup: usergroups,
    zerver_namedusergroup: named,
    zerver_usergroupmembership: [{ id: 1, user_group: 9, user_profile: 11 }, { id: 2, user_group: 9, user_profile: 12 }, { id: 3, user_group: 10, user_profile: 12 }],
    zerver_groupgroupmembership: [{ id: 1, supergroup: 9, subgroup: group('role:moderators') }, { id: 2, supergroup: 10, subgroup: 9 }],
    zerver_defaultstream: [{ id: 1, realm: R, stream: 20 }],
    zerver_realmdomain: [{ id: 1, realm: R, domain: 'acme.test', allow_subdomains: true }],
    zerver_realmfilter: [{ id: 1, realm: R, pattern: '#(?P<id>[0-9]+)', url_template: 'https://tracker.acme.test/issues/{id}', order: 0 }],
    zerver_realmplayground: [{ id: 1, realm: R, name: 'Python', pygments_language: 'python', url_template: 'https://play.acme.test/?code={code}' }],
    zerver_realmemoji: [{ id: 1, realm: R, name: 'party', file_name: '1.png', author: 10, deactivated: false, is_animated: false }],
    zerver_customprofilefield: [
      { id: 1, realm: R, name: 'Phone', hint: 'Work phone', field_type: 1, field_data: '', order: 0, display_in_profile_summary: true, required: false, editable_by_user: true },
      { id: 2, realm: R, name: 'Manager', hint: '', field_type: 6, field_data: '', order: 1, display_in_profile_summary: false, required: false, editable_by_user: true },
    ],
    zerver_customprofilefieldvalue: [{ id: 1, user_profile: 12, field: 1, value: '555-0100', rendered_value: '<p>555-0100</p>' }, { id: 2, user_profile: 12, field: 2, value: '[11]', rendered_value: null }],
    zerver_usertopic: [{ id: 1, user_profile: 12, stream: 20, recipient: 200, topic_name: 'links', visibility_policy: 1, last_updated: T0 }, { id: 2, user_profile: 10, stream: 20, recipient: 200, topic_name: 'welcome', visibility_policy: 3, last_updated: T0 }],
    zerver_muteduser: [{ id: 1, user_profile: 12, muted_user: 13, date_muted: T0 }],
    zerver_userstatus: [{ id: 1, user_profile: 11, status_text: 'In a meeting', emoji_name: 'calendar', emoji_code: '1f4c6', reaction_type: 'unicode_emoji', timestamp: T0, client: 1 }],
    zerver_alertword: [{ id: 1, realm: R, user_profile: 10, word: 'lunch' }],
    zerver_reaction: [
      { id: 1, message: 500, user_profile: 12, emoji_name: '+1', emoji_code: '1f44d', reaction_type: 'unicode_emoji' },
      { id: 2, message: 501, user_profile: 10, emoji_name: 'party', emoji_code: '1', reaction_type: 'realm_emoji' },
    ],
    zerver_submessage: [
      { id: 1, message: 506, sender: 10, msg_type: 'widget', content: '{"widget_type": "poll", "extra_data": {"question": "Lunch?", "options": ["Pizza", "Salad"]}}' },
      { id: 2, message: 506, sender: 12, msg_type: 'widget', content: '{"type": "vote", "key": "canned,0", "vote": 1}' },
    ],
    zerver_scheduledmessage: [{ id: 1, sender: 10, recipient: 200, subject: 'later', content: 'Scheduled hello', rendered_content: '<p>Scheduled hello</p>', sending_client: 1, stream: 20, realm: R, scheduled_timestamp: 4_000_000_000, delivered: false, delivered_message: null, has_attachment: false, request_timestamp: T0, delivery_type: 1, failed: false, failure_message: null, read_by_sender: true }],
    zerver_savedsnippet: [{ id: 1, realm: R, user_profile: 10, title: 'Greeting', content: 'Hello there!', date_created: T0 }],
    zerver_navigationview: [{ id: 1, user: 10, fragment: 'narrow/channel/20-general', is_pinned: true, name: 'General' }],
    zerver_channelfolder: [{ id: 1, realm: R, name: 'Engineering', description: 'Builders', rendered_description: '<p>Builders</p>', date_created: T0, creator: 10, is_archived: false, order: 0 }],
    zerver_draft: [{ id: 1, user_profile: 12, recipient: 200, topic: 'draft topic', content: 'Unsent thoughts', last_edit_time: T0 }],
    zerver_realmuserdefault: [{ id: 1, realm: R, twenty_four_hour_time: true, emojiset: 'google' }],
    zerver_botstoragedata: [{ id: 1, bot_profile: 14, key: 'counter', value: '42' }],
    zerver_botconfigdata: [],
    zerver_service: [{ id: 1, user_profile: 14, name: 'helper', base_url: 'https://bots.acme.test/hook', token: 'secret', interface: 1 }],
    zerver_client: [{ id: 1, name: 'website' }, { id: 2, name: 'ZulipPython' }],
    zerver_realmauditlog: [],
    zerver_userpresence: [],
  };
  put('realm.json', { ...tables, import_source: 'zulip' });
  files.forEach((f, i) => put(`messages-${String(i + 1).padStart(6, '0')}.json`, f));
  put('attachment.json', { zerver_attachment: [{ id: 1, file_name: 'notes.txt', path_id: '2/ab/Xy12AbCdEfGhIjKlMnOpQrSt/notes.txt', owner: 12, realm: R, size: 10, create_time: T0, content_type: 'text/plain', is_realm_public: true, is_web_public: false, messages: [501], scheduled_messages: [] }] });
  put('uploads/2/ab/Xy12AbCdEfGhIjKlMnOpQrSt/notes.txt', EXPECTED.uploadBytes);
  put('uploads/records.json', [{ realm_id: R, user_profile_id: 12, s3_path: '2/ab/Xy12AbCdEfGhIjKlMnOpQrSt/notes.txt', path: '2/ab/Xy12AbCdEfGhIjKlMnOpQrSt/notes.txt', size: 10, last_modified: T0, content_type: null }]);
  put('avatars/2/4a9e2b6c.original', png);
  put('avatars/2/4a9e2b6c.png', png);
  put('avatars/records.json', [{ realm_id: R, user_profile_id: 11, avatar_version: 3, s3_path: '2/4a9e2b6c.original', path: '2/4a9e2b6c.original', size: png.length, last_modified: T0, content_type: null }, { realm_id: R, user_profile_id: 11, avatar_version: 3, s3_path: '2/4a9e2b6c.png', path: '2/4a9e2b6c.png', size: png.length, last_modified: T0, content_type: null }]);
  put('emoji/2/emoji/images/1.png', png);
  put('emoji/records.json', [{ realm_id: R, author: 10, path: '2/emoji/images/1.png', s3_path: '2/emoji/images/1.png', file_name: '1.png', name: 'party', deactivated: false }]);
  put('realm_icons/2/icon.original', png);
  put('realm_icons/records.json', [{ realm_id: R, path: '2/icon.original', s3_path: '2/icon.original' }]);
  put('migration_status.json', { migrations_by_app: {}, zulip_version: '10.2' });
}

/** The export as the reference ships it: a gzipped tarball with one directory inside. */
export async function buildReferenceTarball(workDir: string, opts: { extraMessages?: number } = {}): Promise<string> {
  const dir = join(workDir, 'zulip-export-acme');
  await buildReferenceExport(dir, opts);
  const tarball = join(workDir, 'zulip-export-acme.tar.gz');
  execFileSync('tar', ['-czf', tarball, '-C', workDir, 'zulip-export-acme']);
  return tarball;
}
