import { useState } from 'preact/hooks';
import { ApiError, call } from '../api.js';
import { Narrow } from '../store/narrow.js';
import type { Store } from '../store/store.js';
import type { Draft } from '../types.js';
import { openDraft } from './compose-state.js';
import { dmTitle, formatFull, hashOf } from './util.js';

/**
 * The drafts the server keeps (from this browser and the person's other devices), newest first,
 * as the reference's drafts overlay lists them: each opens in its conversation with the compose
 * box holding it, or is deleted. The list is the store's, kept by `drafts` events.
 */
export function narrowOfDraft(store: Store, d: Draft): Narrow {
  return d.type === 'stream' ? Narrow.topic(d.to[0], d.topic) : Narrow.dm(d.to.filter((id) => id !== store.selfId));
}

export function Drafts({ store }: { store: Store }) {
  const [error, setError] = useState<string | null>(null);
  const drafts = [...store.drafts].sort((a, b) => (b.timestamp ?? 0) - (a.timestamp ?? 0));
  const open = (d: Draft) => {
    openDraft(store, d);
    location.hash = hashOf(store, narrowOfDraft(store, d));
  };
  const remove = (d: Draft) => call('DELETE', `/drafts/${d.id}`).then(() => setError(null), (err) => setError(err instanceof ApiError ? err.message : String(err)));
  return (
    <section class="drafts" aria-labelledby="drafts-title">
      <h1 id="drafts-title" class="view-title">
        Drafts
      </h1>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {drafts.length === 0 && <p class="empty">No drafts. What you write is kept here until it is sent.</p>}
      <ul class="plain draft-list">
        {drafts.map((d) => {
          const where = d.type === 'stream' ? `#${store.streamName(d.to[0])} › ${d.topic || (store.realm.empty_topic_display_name ?? 'general chat')}` : dmTitle(store, d.to.filter((id) => id !== store.selfId));
          return (
            <li key={d.id} class="draft" data-draft-id={d.id}>
              <p class="draft-where">
                <b>{where}</b> {d.timestamp ? <small>{formatFull(d.timestamp)}</small> : null}
              </p>
              <p class="draft-content">{d.content}</p>
              <button type="button" onClick={() => open(d)} aria-label={`Open the draft to ${where}`}>
                Open
              </button>{' '}
              <button type="button" class="danger" onClick={() => void remove(d)} aria-label={`Delete the draft to ${where}`}>
                Delete
              </button>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
