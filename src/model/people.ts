import { AlertWordMatcher } from './alert-words.js';
import type { ProfileFieldRecord, UserStatusRecord } from './types.js';

/**
 * One realm's people data beyond the user records: custom profile fields, statuses, mutes and
 * alert words (RealmState.people). All small, all needed by /register, and mutes and alert words
 * on every send, so all of it is held in memory; the shard loads it at start and every change is
 * made here and written in the same do-action.
 */
export class PeopleState {
  readonly profileFields = new Map<number, ProfileFieldRecord>();
  /** userId -> status, for users who have set one. */
  readonly statuses = new Map<number, UserStatusRecord>();
  /** Muter -> (muted user -> seconds when muted), in the order muted. */
  private readonly mutes = new Map<number, Map<number, number>>();
  /** Muted user -> who muted them: a send asks this of its sender. */
  private readonly mutedBy = new Map<number, Set<number>>();
  /** userId -> alert words, as they were added (case kept). */
  private readonly words = new Map<number, string[]>();
  private matcher: AlertWordMatcher | null = null;

  /** Fields in the order clients show them: by `order`, then by id. */
  orderedFields(): ProfileFieldRecord[] {
    return [...this.profileFields.values()].sort((a, b) => a.order - b.order || a.id - b.id);
  }

  mutesOf(userId: number): ReadonlyMap<number, number> {
    return this.mutes.get(userId) ?? new Map();
  }

  /** The users who muted `userId`. */
  mutersOf(userId: number): ReadonlySet<number> | undefined {
    return this.mutedBy.get(userId);
  }

  setMute(userId: number, mutedId: number, timestamp: number | null): void {
    let mine = this.mutes.get(userId);
    if (timestamp === null) {
      mine?.delete(mutedId);
      this.mutedBy.get(mutedId)?.delete(userId);
      return;
    }
    if (!mine) this.mutes.set(userId, (mine = new Map()));
    mine.set(mutedId, timestamp);
    let muters = this.mutedBy.get(mutedId);
    if (!muters) this.mutedBy.set(mutedId, (muters = new Set()));
    muters.add(userId);
  }

  alertWords(userId: number): readonly string[] {
    return this.words.get(userId) ?? [];
  }

  setAlertWords(userId: number, words: string[]): void {
    if (words.length === 0) this.words.delete(userId);
    else this.words.set(userId, words);
    this.matcher = null;
  }

  /**
   * The realm's alert words as one matcher, rebuilt on the first send after a change. The
   * reference leaves deactivated users' words out; they receive nothing, so keeping them here
   * changes no flag.
   */
  alertMatcher(): AlertWordMatcher {
    this.matcher ??= new AlertWordMatcher(this.words);
    return this.matcher;
  }
}
