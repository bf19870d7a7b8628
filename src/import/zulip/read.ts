import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ImportError } from '../errors.js';

/**
 * Reading the reference's export format (zerver/lib/export.py): a directory with realm.json
 * (every organization table, by table name), messages-NNNNNN.json (zerver_message and the
 * zerver_usermessage rows of those messages, 1,000 messages a file), attachment.json
 * (zerver_attachment), and uploads/, avatars/, emoji/, realm_icons/ each with a records.json
 * listing its files. Rows are Django's model_to_dict: a foreign key under the field's name
 * (`sender`, not `sender_id`), dates as float seconds, many-to-many fields as id lists.
 */

export type Row = Record<string, unknown>;
export type Tables = Record<string, Row[]>;

export interface MessageFile {
  zerver_message: Row[];
  zerver_usermessage: Row[];
}

function parseJson(path: string, name: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ImportError(name, null, `cannot be read (${(err as Error).message})`);
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new ImportError(name, null, `not valid JSON (${(err as Error).message})`);
  }
}

export class ZulipExport {
  readonly messageFiles: string[];

  constructor(readonly root: string) {
    // messages-000001.json, -000002, ... in order; the reference stops at the first gap.
    const names = new Set(readdirSync(root));
    const files: string[] = [];
    for (let n = 1; names.has(messageFileName(n)); n++) files.push(messageFileName(n));
    this.messageFiles = files;
  }

  json(name: string): unknown {
    return parseJson(join(this.root, name), name);
  }

  has(name: string): boolean {
    return existsSync(join(this.root, name));
  }

  /** realm.json, checked to be an object of tables (lists of rows). */
  realm(): Tables {
    const data = this.json('realm.json');
    if (!isObject(data)) throw new ImportError('realm.json', null, 'not a JSON object of tables');
    const tables: Tables = {};
    for (const [name, value] of Object.entries(data)) {
      if (name === 'import_source' || name === 'sort_by_date') continue;
      if (!Array.isArray(value)) throw new ImportError('realm.json', name, 'a table must be a list of rows');
      value.forEach((row, i) => {
        if (!isObject(row)) throw new ImportError('realm.json', `${name}[${i}]`, 'a row must be a JSON object');
      });
      tables[name] = value as Row[];
    }
    if (!tables.zerver_realm || tables.zerver_realm.length !== 1) throw new ImportError('realm.json', 'zerver_realm', 'must hold exactly one organization');
    return tables;
  }

  /** realm.json's extra keys: who wrote it, and whether messages take their order from dates. */
  realmInfo(): { importSource: string; sortByDate: boolean } {
    const data = this.json('realm.json') as Row;
    return { importSource: String(data.import_source ?? 'zulip'), sortByDate: data.sort_by_date === true };
  }

  messages(name: string): MessageFile {
    const data = this.json(name);
    if (!isObject(data) || !Array.isArray(data.zerver_message)) throw new ImportError(name, null, 'must be an object with a zerver_message list');
    const usermessages = data.zerver_usermessage ?? [];
    if (!Array.isArray(usermessages)) throw new ImportError(name, 'zerver_usermessage', 'must be a list');
    return { zerver_message: data.zerver_message as Row[], zerver_usermessage: usermessages as Row[] };
  }

  attachments(): Row[] {
    if (!this.has('attachment.json')) return [];
    const data = this.json('attachment.json');
    if (!isObject(data) || !Array.isArray(data.zerver_attachment)) throw new ImportError('attachment.json', null, 'must be an object with a zerver_attachment list');
    return data.zerver_attachment as Row[];
  }

  /** uploads/, avatars/, emoji/ or realm_icons/ records.json; [] when the folder is absent. */
  records(folder: 'uploads' | 'avatars' | 'emoji' | 'realm_icons'): Row[] {
    const name = `${folder}/records.json`;
    if (!this.has(name)) return [];
    const data = this.json(name);
    if (!Array.isArray(data)) throw new ImportError(name, null, 'must be a list of records');
    return data as Row[];
  }

  /** A file of the export (`uploads/<path>`, `avatars/<path>`...), or null when it is missing. */
  file(folder: string, path: string): Buffer | null {
    const full = join(this.root, folder, path);
    if (path.split('/').includes('..') || !existsSync(full)) return null;
    return readFileSync(full);
  }
}

export function messageFileName(n: number): string {
  return `messages-${String(n).padStart(6, '0')}.json`;
}

export function isObject(value: unknown): value is Row {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Field kinds a row is checked for: `?` allows null (and absence). */
export type Kind = 'int' | 'int?' | 'num' | 'num?' | 'str' | 'str?' | 'bool' | 'bool?' | 'ints' | 'any';

function fits(value: unknown, kind: Kind): boolean {
  const optional = kind.endsWith('?');
  if (value === undefined || value === null) return optional || kind === 'any';
  switch (kind.replace('?', '')) {
    case 'int':
      return Number.isSafeInteger(value);
    case 'num':
      return typeof value === 'number' && Number.isFinite(value);
    case 'str':
      return typeof value === 'string';
    case 'bool':
      return typeof value === 'boolean';
    case 'ints':
      return Array.isArray(value) && value.every((v) => Number.isSafeInteger(v));
    default:
      return true;
  }
}

const KIND_NAMES: Record<string, string> = { int: 'an integer', num: 'a number', str: 'a string', bool: 'true or false', ints: 'a list of integers', any: 'present' };

/** Checks every row of a table against its fields' kinds; the first problem is an ImportError. */
export function checkRows(file: string, table: string, rows: Row[], fields: Record<string, Kind>): void {
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i];
    for (const [field, kind] of Object.entries(fields)) {
      if (!fits(row[field], kind)) {
        const id = Number.isSafeInteger(row.id) ? ` (id ${row.id as number})` : '';
        throw new ImportError(file, `${table}[${i}]${id}`, `${field} must be ${KIND_NAMES[kind.replace('?', '')]}${kind.endsWith('?') ? ' or null' : ''}`);
      }
    }
  }
}
