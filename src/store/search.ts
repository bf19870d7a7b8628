import type { MessageRecord } from '../model/message.js';
import type { StoreView, WriteBatch } from './shard-store.js';

/**
 * The full-text search index: one key [realmId, word, msgId] per distinct word of a message's
 * content and topic, written in the message's own transaction (indexMessage), so `search:`
 * narrows are range reads of the rarest word rather than scans of the messages.
 *
 * Words are what the reference's PostgreSQL search treats as lexemes, minus its stemming:
 * maximal runs of letters and digits, lower-cased, with English stop words left out (a query
 * made only of them matches nothing, as plainto_tsquery's empty query does).
 */

/** Longer runs are not words anyone searches for (hashes, base64); they would bloat the keys. */
const MAX_WORD_LENGTH = 64;

const STOP_WORDS = new Set(
  ('i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers herself ' +
    'it its itself they them their theirs themselves what which who whom this that these those am is are was were be ' +
    'been being have has had having do does did doing a an the and but if or because as until while of at by for with ' +
    'about against between into through during before after above below to from up down in out on off over under ' +
    'again further then once here there when where why how all any both each few more most other some such no nor not ' +
    'only own same so than too very s t can will just don should now').split(' '),
);

const WORD = /[\p{L}\p{N}]+/gu;

export function isStopWord(word: string): boolean {
  return STOP_WORDS.has(word);
}

/** The searchable words of a text, distinct, in order of first appearance. */
export function words(text: string): string[] {
  const out = new Set<string>();
  for (const match of text.toLowerCase().matchAll(WORD)) {
    const word = match[0];
    if (word.length <= MAX_WORD_LENGTH && !STOP_WORDS.has(word)) out.add(word);
  }
  return [...out];
}

export function messageWords(msg: MessageRecord): string[] {
  return words(`${msg.topic} ${msg.content}`);
}

/** Adds (or removes) a message's search rows, alongside its other index rows. */
export function indexSearch(shard: StoreView, batch: WriteBatch, msg: MessageRecord, add: boolean): void {
  for (const word of messageWords(msg)) {
    const key = [msg.realmId, word, msg.id];
    if (add) batch.put(shard.store.search, key, null);
    else batch.del(shard.store.search, key);
  }
}
