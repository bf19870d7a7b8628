import { useEffect, useState } from 'preact/hooks';
import { call } from '../api.js';
import { Narrow } from '../store/narrow.js';
import type { Store } from '../store/store.js';
import { dmTitle, hashOf } from './util.js';

/**
 * Recent conversations: every topic and DM conversation by its newest message. The list comes
 * from the store's conversations, which the newest messages seed once and events keep.
 */
// Per store: a re-register starts a new store, whose conversations are seeded again.
const seeded = new WeakSet<Store>();

export function Recent({ store }: { store: Store }) {
  const [loading, setLoading] = useState(!seeded.has(store));
  useEffect(() => {
    if (seeded.has(store)) return;
    call('GET', '/messages', { anchor: 'newest', num_before: 400, num_after: 0, narrow: [], apply_markdown: false, client_gravatar: true }).then(
      (r) => {
        seeded.add(store);
        store.noteMessages(r.messages);
        setLoading(false);
        store.changed();
      },
      () => setLoading(false),
    );
  }, [store]);
  const rows = [...store.conversations.values()].sort((a, b) => b.maxId - a.maxId).slice(0, 100);
  return (
    <section class="recent" aria-labelledby="recent-title">
      <h1 id="recent-title" class="view-title">
        Recent conversations
      </h1>
      {loading && <p role="status">Loading…</p>}
      <table>
        <thead>
          <tr>
            <th scope="col">Conversation</th>
            <th scope="col">Unread</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((c) => {
            const narrow = c.dmIds ? Narrow.dm(c.dmIds) : Narrow.topic(c.streamId!, c.topic!);
            const unread = c.dmIds ? store.unreads.dm(c.key) : store.unreads.topic(c.streamId!, c.topic!);
            return (
              <tr key={c.key}>
                <td>
                  <a href={hashOf(store, narrow)}>{c.dmIds ? dmTitle(store, c.dmIds) : `#${store.streamName(c.streamId!)} › ${c.topic || (store.realm.empty_topic_display_name ?? 'general chat')}`}</a>
                </td>
                <td>{unread || ''}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </section>
  );
}
