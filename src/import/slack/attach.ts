import { copyFileSync, linkSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { newPathId, sanitizeName, uploadUrl } from '../../api/uploads/files.js';
import type { Row } from '../zulip/read.js';
import type { ExportWriter } from '../writer.js';
import { messageFiles, slackHosted, type SlackFetched } from './files.js';

/**
 * The conversion's side of what was fetched from Slack: each downloaded file becomes an upload
 * of the new organization (uploads/<path id>, an upload record and an attachment row owned by the
 * message's sender, with the file's name, size, type and Slack creation time), and the message
 * links it as the reference's process_message_files writes it, `[title](/user_uploads/<path id>)`
 * after the text; custom emoji become the organization's, the team icon its icon, and people's
 * pictures their avatars. Without a
 * token (or for a file that could not be had) the message keeps its link to Slack, counted here
 * so the import can say what stayed behind.
 */
type Json = Record<string, any>;

export interface SlackLeftBehind {
  /** Files Slack hosts that stayed links to Slack. */
  fileLinks: number;
  /** Reactions with a custom emoji the organization does not have. */
  customReactions: number;
}

/** Copies a cached file into the export being written, by a hard link where the disk allows. */
function place(from: string, to: string): void {
  mkdirSync(dirname(to), { recursive: true });
  try {
    linkSync(from, to);
  } catch {
    copyFileSync(from, to);
  }
}

export class SlackAttachments {
  readonly attachments: Row[] = [];
  readonly uploads: Row[] = [];
  readonly emojiRecords: Row[] = [];
  readonly iconRecords: Row[] = [];
  readonly avatarRecords: Row[] = [];
  readonly left: SlackLeftBehind = { fileLinks: 0, customReactions: 0 };
  private readonly emojiIds = new Map<string, number>();

  constructor(
    private readonly out: string,
    private readonly fetched: SlackFetched | null,
  ) {}

  /** The custom emoji rows and images, and the icon, before the messages that use them. */
  addEmojiAndIcon(w: ExportWriter, realm: Json): void {
    if (!this.fetched) return;
    for (const [name, image] of [...this.fetched.emoji].sort(([a], [b]) => a.localeCompare(b))) {
      const id = w.next('realmemoji');
      const fileName = `${id}.${image.ext}`;
      const path = `1/emoji/images/${fileName}`;
      place(image.path, join(this.out, 'emoji', path));
      w.add('zerver_realmemoji', { id, name, file_name: fileName, author: null, deactivated: false });
      this.emojiRecords.push({ id, name, file_name: fileName, path, s3_path: path, realm_id: 1 });
      this.emojiIds.set(name, id);
    }
    if (this.fetched.icon) {
      place(this.fetched.icon, join(this.out, 'realm_icons', '1', 'icon.original'));
      this.iconRecords.push({ realm_id: 1, path: '1/icon.original', s3_path: '1/icon.original', content_type: null });
      realm.icon_source = 'U';
      realm.icon_version = 1;
    }
  }

  /** A user's avatar_source: 'U' with the downloaded picture in place, else 'G' (the default). */
  avatar(slackId: string, userId: number): 'U' | 'G' {
    const picture = this.fetched?.avatars.get(slackId);
    if (!picture) return 'G';
    const path = `1/${userId}.original`;
    place(picture, join(this.out, 'avatars', path));
    this.avatarRecords.push({ realm_id: 1, user_profile_id: userId, path, s3_path: path, content_type: null, avatar_version: 1 });
    return 'U';
  }

  /** A reaction's custom emoji (an alias names its emoji), if the organization has it. */
  customEmoji(name: string): { id: number; name: string } | undefined {
    const target = this.emojiIds.has(name) ? name : (this.fetched?.aliases.get(name) ?? '');
    const id = this.emojiIds.get(target);
    if (id === undefined) {
      this.left.customReactions++;
      return undefined;
    }
    return { id, name: target };
  }

  /** The message's file links, its attachments made for message `messageId` sent by `sender`. */
  links(m: Json, sender: number, messageId: number): { links: string[]; hasAttachment: boolean; hasImage: boolean } {
    const links: string[] = [];
    let hasAttachment = false;
    let hasImage = false;
    for (const f of messageFiles(m)) {
      const got = slackHosted(f) ? this.fetched?.files.get(String(f.url_private)) : undefined;
      if (!got) {
        if (slackHosted(f)) this.left.fileLinks++;
        links.push(`[${String(f.title ?? f.name)}](${String(f.url_private)})`);
        continue;
      }
      const name = String(f.name ?? f.title ?? 'file');
      const pathId = newPathId(1, sanitizeName(name));
      place(got.path, join(this.out, 'uploads', pathId));
      // The reference's get_markdown_link_for_url: no brackets in a link's text.
      links.push(`[${String(f.title ?? name).replace(/[[\]]/g, '')}](${uploadUrl(pathId)})`);
      hasAttachment = true;
      if (String(f.mimetype ?? '').includes('image')) hasImage = true;
      this.uploads.push({ realm_id: 1, user_profile_id: sender, s3_path: pathId, path: pathId, size: got.size, last_modified: Number(f.timestamp ?? f.created ?? 0), content_type: null });
      this.attachments.push({
        id: this.attachments.length + 1,
        file_name: name,
        path_id: pathId,
        owner: sender,
        size: got.size,
        create_time: Number(f.created ?? f.timestamp ?? 0) || null,
        content_type: typeof f.mimetype === 'string' ? f.mimetype : null,
        is_realm_public: true,
        messages: [messageId],
        scheduled_messages: [],
      });
    }
    return { links, hasAttachment, hasImage };
  }
}
