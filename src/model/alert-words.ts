/**
 * Alert words as the reference matches them (its AlertWordNotificationProcessor): each word,
 * lower-cased, is looked for in the lower-cased message text, and a match counts when it stands
 * alone: at the start of the text or after one of BEFORE, and at the end or before one of AFTER.
 * Matches may overlap (the reference runs an Aho-Corasick automaton over all the realm's words),
 * so each word is searched for on its own.
 *
 * Two details follow the reference's sets exactly: `"` may precede a word but not follow it (its
 * list has the two-character string `",` where a `"` was meant, which never equals one
 * character), and `-` or `/` next to a word make no match. One deliberate difference: the
 * reference skips the check of the character before a match that starts at the second position
 * ("xfoo" alerts "foo" there); here a match must be a whole word wherever it starts.
 */
const BEFORE = new Set([' ', '\n', '(', '"', '.', ',', "'", ';', '[', '*', '`', '>']);
const AFTER = new Set([' ', '\n', ')', '?', ':', '.', ',', "'", ';', ']', '!', '*', '`']);

export class AlertWordMatcher {
  /** Lower-cased word -> the users who set it. */
  private readonly byWord = new Map<string, number[]>();

  constructor(words: Iterable<[number, readonly string[]]>) {
    for (const [userId, list] of words) {
      for (const word of list) {
        const key = word.toLowerCase();
        const users = this.byWord.get(key);
        if (!users) this.byWord.set(key, [userId]);
        else if (!users.includes(userId)) users.push(userId);
      }
    }
  }

  get empty(): boolean {
    return this.byWord.size === 0;
  }

  /** The users one of whose words occurs in `text` as a whole word. */
  match(text: string): Set<number> {
    const found = new Set<number>();
    if (this.byWord.size === 0) return found;
    const lower = text.toLowerCase();
    for (const [word, users] of this.byWord) {
      if (users.every((id) => found.has(id))) continue;
      if (occurs(lower, word)) for (const id of users) found.add(id);
    }
    return found;
  }
}

function occurs(text: string, word: string): boolean {
  for (let at = text.indexOf(word); at >= 0; at = text.indexOf(word, at + 1)) {
    const end = at + word.length;
    if ((at === 0 || BEFORE.has(text[at - 1])) && (end >= text.length || AFTER.has(text[end]))) return true;
  }
  return false;
}
