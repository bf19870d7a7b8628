import { ApiError, badRequest } from '../../lib/errors.js';
import type { SavedSnippetRecord } from '../../model/personal.js';
import type { RealmState } from '../../model/realm-state.js';
import type { UserRecord } from '../../model/types.js';
import type { Shard } from '../../shard/shard.js';
import { userRows } from '../../store/personal.js';
import { MAX_MESSAGE_LENGTH } from '../messages/send.js';
import { writeOwnRow } from '../../api-kit/personal.js';

/**
 * Saved snippets (feature level 297, editing 368): text a user inserts into messages, kept for
 * them alone, after the reference's zerver/actions/saved_snippets.py.
 */

/** The reference's SavedSnippet.MAX_TITLE_LENGTH. */
export const MAX_TITLE_LENGTH = 100;

const snippetNotFound = () => new ApiError('Saved snippet does not exist.', { status: 404 });

/** A title or content as stored: stripped, not empty, within its limit. */
export function checkSnippetText(name: 'title' | 'content', raw: string): string {
  const text = raw.trim();
  if (text === '') throw badRequest(name === 'title' ? 'Title cannot be empty.' : 'Content cannot be empty.');
  const limit = name === 'title' ? MAX_TITLE_LENGTH : MAX_MESSAGE_LENGTH;
  if ([...text].length > limit) throw badRequest(`${name} is too long (limit: ${limit} characters)`);
  return text;
}

const key = (realm: RealmState, userId: number, id: number) => [realm.id, userId, id];

export const snippetView = (s: SavedSnippetRecord) => ({ id: s.id, title: s.title, content: s.content, date_created: s.dateCreated });

export function listSnippets(shard: Shard, realm: RealmState, userId: number): SavedSnippetRecord[] {
  return userRows<SavedSnippetRecord>(shard.store.snippets, realm.id, userId);
}

export async function doCreateSnippet(shard: Shard, realm: RealmState, user: UserRecord, title: string, content: string): Promise<number> {
  const batch = shard.batch();
  const snippet: SavedSnippetRecord = { id: shard.allocate(batch, 'snippet'), title, content, dateCreated: Math.floor(Date.now() / 1000) };
  batch.put(shard.store.snippets, key(realm, user.id, snippet.id), snippet);
  batch.emit(realm.id, { type: 'saved_snippets', op: 'add', saved_snippet: snippetView(snippet) }, [user.id]);
  await batch.commit();
  return snippet.id;
}

function ownSnippet(shard: Shard, realm: RealmState, user: UserRecord, id: number): SavedSnippetRecord {
  const snippet = shard.read<SavedSnippetRecord>(shard.store.snippets, key(realm, user.id, id));
  if (!snippet) throw snippetNotFound();
  return snippet;
}

export async function doEditSnippet(shard: Shard, realm: RealmState, user: UserRecord, id: number, change: { title?: string; content?: string }): Promise<void> {
  const snippet = { ...ownSnippet(shard, realm, user, id), ...change };
  await writeOwnRow(shard, realm, user.id, shard.store.snippets, key(realm, user.id, id), snippet, { type: 'saved_snippets', op: 'update', saved_snippet: snippetView(snippet) });
}

export async function doDeleteSnippet(shard: Shard, realm: RealmState, user: UserRecord, id: number): Promise<void> {
  ownSnippet(shard, realm, user, id);
  await writeOwnRow(shard, realm, user.id, shard.store.snippets, key(realm, user.id, id), undefined, { type: 'saved_snippets', op: 'remove', saved_snippet_id: id });
}
