import { invalidArgument } from '../../lib/errors.js';
import type { RealmState } from '../../model/realm-state.js';
import type { UserRecord } from '../../model/types.js';
import type { Shard } from '../../shard/shard.js';
import { me, operation } from '../../api-kit/operation.js';

/**
 * Alert words (GET, POST, DELETE /users/me/alert_words), after the reference's
 * zerver/lib/alert_words.py: a user's words are kept with the case they were added in and
 * compared case-insensitively; adding a word already there (in any case) changes nothing, and
 * removing one removes it in every case. Each change sends the whole list back, and to the
 * user's clients as an `alert_words` event. Sends match them through model/alert-words.ts.
 */
const MAX_WORD_LENGTH = 100;

async function save(shard: Shard, realm: RealmState, user: UserRecord, words: string[]): Promise<string[]> {
  realm.people.setAlertWords(user.id, words);
  const batch = shard.batch();
  if (words.length === 0) batch.del(shard.store.alertWords, [realm.id, user.id]);
  else batch.put(shard.store.alertWords, [realm.id, user.id], words);
  batch.emit(realm.id, { type: 'alert_words', alert_words: words }, [user.id]);
  await batch.commit();
  return words;
}

const list = operation({
  auth: 'user',
  handler: (ctx) => ({ alert_words: [...ctx.realm.people.alertWords(me(ctx).id)] }),
});

const wordsParam = { alert_words: { type: 'array', items: { type: 'string' } } };

const add = operation<{ alert_words: string[] }>({
  auth: 'user',
  params: { properties: wordsParam, required: ['alert_words'] },
  handler: async (ctx) => {
    const user = me(ctx);
    // Measured before the surrounding white space is stripped, as the reference does.
    ctx.params.alert_words.forEach((word, i) => {
      if ([...word].length > MAX_WORD_LENGTH) throw invalidArgument('alert_words', `alert_words[${i}] is too long (limit: ${MAX_WORD_LENGTH} characters)`);
    });
    const words = [...ctx.realm.people.alertWords(user.id)];
    const known = new Set(words.map((w) => w.toLowerCase()));
    // Among new words equal but for case, the last one given is kept, in the first one's place.
    const added = new Map<string, string>();
    for (const raw of ctx.params.alert_words) {
      const word = raw.trim();
      if (word !== '' && !known.has(word.toLowerCase())) added.set(word.toLowerCase(), word);
    }
    return { alert_words: await save(ctx.shard, ctx.realm, user, [...words, ...added.values()]) };
  },
});

const remove = operation<{ alert_words: string[] }>({
  auth: 'user',
  params: { properties: wordsParam, required: ['alert_words'] },
  handler: async (ctx) => {
    const user = me(ctx);
    const gone = new Set(ctx.params.alert_words.map((w) => w.toLowerCase()));
    const words = ctx.realm.people.alertWords(user.id).filter((w) => !gone.has(w.toLowerCase()));
    return { alert_words: await save(ctx.shard, ctx.realm, user, words) };
  },
});

/** `alert_words` of /register. */
export function alertWordsSection(realm: RealmState, user: UserRecord): string[] {
  return [...realm.people.alertWords(user.id)];
}

export const operations = {
  'alertWords.list': list,
  'alertWords.add': add,
  'alertWords.remove': remove,
};
