import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { messageFileName, type Row } from './zulip/read.js';

/**
 * Writes an export in the reference's format (zerver/lib/export.py's layout), which is what the
 * reference's own converters of Slack and Mattermost data produce (zerver/data_import/): the
 * converters here build one, and the import reads it like any other. Rows use the reference's
 * field names; messages go out 1,000 a file, each with its UserMessage rows.
 */
export const DATA_IMPORT_CLIENT = 5;
export const DATA_IMPORT_CLIENTS = [
  { id: 1, name: 'Internal' },
  { id: 2, name: 'website' },
  { id: 3, name: 'ZulipMobile' },
  { id: 4, name: 'ZulipElectron' },
  { id: DATA_IMPORT_CLIENT, name: 'ZulipDataImport' },
];

export class ExportWriter {
  readonly tables: Record<string, Row[]> = {};
  private messages: Row[] = [];
  private usermessages: Row[] = [];
  private files = 0;
  private nextMessage = 1;
  private nextUserMessage = 1;
  private readonly seq = new Map<string, number>();

  constructor(readonly dir: string) {
    mkdirSync(dir, { recursive: true });
  }

  /** The next id of a kind, from 1 (the reference's sequencer NEXT_ID). */
  next(kind: string): number {
    const id = (this.seq.get(kind) ?? 0) + 1;
    this.seq.set(kind, id);
    return id;
  }

  add(table: string, row: Row): Row {
    (this.tables[table] ??= []).push(row);
    return row;
  }

  /** A message and its UserMessage rows ([user, flags]); returns its id. Ids follow the order of calls. */
  message(row: Omit<Row, 'id'>, rows: [number, number][]): number {
    const id = this.nextMessage++;
    this.messages.push({ id, ...row });
    for (const [user, flags] of rows) this.usermessages.push({ id: this.nextUserMessage++, user_profile: user, message: id, flags_mask: flags });
    if (this.messages.length >= 1000) this.flush();
    return id;
  }

  get messageCount(): number {
    return this.nextMessage - 1;
  }

  private flush(): void {
    if (this.messages.length === 0) return;
    this.files++;
    writeFileSync(join(this.dir, messageFileName(this.files)), JSON.stringify({ zerver_message: this.messages, zerver_usermessage: this.usermessages }));
    this.messages = [];
    this.usermessages = [];
  }

  /** Writes realm.json, attachment.json and the records of the file folders (their files are the caller's). */
  finish(importSource: string, attachments: Row[] = [], uploads: Row[] = [], emoji: Row[] = [], icons: Row[] = [], avatars: Row[] = []): void {
    this.flush();
    writeFileSync(join(this.dir, 'realm.json'), JSON.stringify({ ...this.tables, import_source: importSource }));
    writeFileSync(join(this.dir, 'attachment.json'), JSON.stringify({ zerver_attachment: attachments }));
    for (const [folder, records] of [['uploads', uploads], ['avatars', avatars], ['emoji', emoji], ['realm_icons', icons]] as const) {
      mkdirSync(join(this.dir, folder), { recursive: true });
      writeFileSync(join(this.dir, folder, 'records.json'), JSON.stringify(records));
    }
  }
}

/** The reference's build_user_message flags: read, mentioned, a private message. */
export function userMessageFlags(mentioned: boolean, isPrivate: boolean): number {
  return 1 | (mentioned ? 8 : 0) | (isPrivate ? 2048 : 0);
}

/** A topic cut to 60 characters with `…` as the reference's truncate_content cuts it. */
export function truncate(text: string, max: number, marker = '…'): string {
  const chars = [...text];
  return chars.length > max ? chars.slice(0, max - [...marker].length).join('') + marker : text;
}
