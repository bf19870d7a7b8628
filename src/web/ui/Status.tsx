import { useState } from 'preact/hooks';
import { ApiError, call } from '../api.js';
import type { Store, UserStatus } from '../store/store.js';
import { EmojiPicker, type PickedEmoji } from './EmojiPicker.js';
import { emojiChar } from './util.js';

/**
 * A person's status: an emoji (the picker's: the server's names and the organization's custom
 * emoji) and a text, set with POST /users/me/status and shown beside their name (messages, the
 * DM list) from the store's statuses, which user_status events keep.
 */
export function StatusEmoji({ store, userId }: { store: Store; userId: number }) {
  const st = store.statuses.get(userId);
  if (!st?.emoji_code) return null;
  const label = st.status_text ? `Status: ${st.status_text}` : `Status :${st.emoji_name}:`;
  if (st.reaction_type === 'realm_emoji') {
    const custom = store.realmEmoji.get(st.emoji_code);
    return custom ? <img class="status-emoji" src={custom.source_url} alt={label} title={label} width={16} height={16} /> : null;
  }
  return (
    <span class="status-emoji" role="img" aria-label={label} title={label}>
      {st.reaction_type === 'zulip_extra_emoji' ? '⭐' : emojiChar(st.emoji_code)}
    </span>
  );
}

export function StatusForm({ store }: { store: Store }) {
  const mine = store.statuses.get(store.selfId) ?? {};
  const [text, setText] = useState(mine.status_text ?? '');
  const [emoji, setEmoji] = useState<PickedEmoji | null>(mine.emoji_code ? { name: mine.emoji_name!, code: mine.emoji_code, type: mine.reaction_type === 'realm_emoji' ? 'realm_emoji' : 'unicode_emoji' } : null);
  const [picking, setPicking] = useState(false);
  const [status, setStatus] = useState<{ ok: boolean; text: string } | null>(null);
  const save = (body: Record<string, unknown>, done: string) =>
    call('POST', '/users/me/status', body).then(
      () => setStatus({ ok: true, text: done }),
      (err) => setStatus({ ok: false, text: err instanceof ApiError ? err.message : String(err) }),
    );
  const current: UserStatus = mine;
  return (
    <form
      class="action-form status-form"
      aria-label="Your status"
      onSubmit={(e) => {
        e.preventDefault();
        void save({ status_text: text, ...(emoji ? { emoji_name: emoji.name, emoji_code: emoji.code, reaction_type: emoji.type } : { emoji_name: '' }) }, 'Status set.');
      }}
    >
      <p class="field">
        <span class="label-text" id="status-emoji-label">
          Status emoji
        </span>
        <span class="status-emoji-choice">
          <button type="button" aria-labelledby="status-emoji-label status-emoji-current" aria-expanded={picking} onClick={() => setPicking(!picking)}>
            <span id="status-emoji-current">{emoji ? `${emoji.type === 'unicode_emoji' ? emojiChar(emoji.code) : ''} :${emoji.name}:` : 'Choose an emoji'}</span>
          </button>
          {emoji && (
            <button type="button" onClick={() => setEmoji(null)}>
              No emoji
            </button>
          )}
          {picking && (
            <EmojiPicker
              store={store}
              onPick={(e) => {
                setEmoji(e);
                setPicking(false);
              }}
              onClose={() => setPicking(false)}
            />
          )}
        </span>
      </p>
      <p class="field">
        <label for="field-status_text">Status</label>
        <input id="field-status_text" name="status_text" placeholder="In a meeting" maxLength={60} value={text} onInput={(e) => setText((e.target as HTMLInputElement).value)} />
      </p>
      <button type="submit">Set status</button>{' '}
      {(current.status_text || current.emoji_code) && (
        <button
          type="button"
          onClick={() => {
            setText('');
            setEmoji(null);
            void save({ status_text: '', emoji_name: '' }, 'Status cleared.');
          }}
        >
          Clear status
        </button>
      )}
      <p class={status?.ok === false ? 'error' : 'ok'} role={status?.ok === false ? 'alert' : 'status'}>
        {status?.text ?? ''}
      </p>
    </form>
  );
}
