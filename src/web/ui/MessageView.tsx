import { useEffect, useState } from 'preact/hooks';
import { ApiError, call } from '../api.js';
import type { MessageList } from '../store/message-list.js';
import { Narrow } from '../store/narrow.js';
import type { Store } from '../store/store.js';
import type { Message, Reaction } from '../types.js';
import { quoteAndReply, replyTo } from './compose-state.js';
import { Avatar } from './Avatar.js';
import { canShowHistory, EditHistory, ReadReceipts } from './Dialogs.js';
import { EmojiPicker } from './EmojiPicker.js';
import { StatusEmoji } from './Status.js';
import { Widget, widgetOf } from './Widgets.js';
import { emojiChar, formatFull, formatTime, hashOf, memo } from './util.js';

/**
 * One message: sender, avatar, time, the server's rendered HTML inserted as it is (the page's
 * CSP forbids inline script, so the HTML cannot run any), reactions, and its actions.
 */
interface Props {
  store: Store;
  list: MessageList;
  msg: Message;
  continued: boolean;
  selected: boolean;
  onSelect: (id: number) => void;
  /** The store's display version: what else a message shows (names, settings, rules) changed. */
  display: number;
}

/**
 * Drawn again only when the message itself is a new object (the list never changes one in
 * place), its place in the feed changed, or something else it shows did (`display`): an event
 * that adds one message redraws one message, not the hundred around it.
 */
export const MessageView = memo(MessageViewInner, (a: Props, b: Props) => a.msg === b.msg && a.continued === b.continued && a.selected === b.selected && a.display === b.display && a.list === b.list);

function MessageViewInner(props: Props) {
  const { store, msg } = props;
  const [picker, setPicker] = useState(false);
  const [menu, setMenu] = useState(false);
  const [editing, setEditing] = useState<null | 'content' | 'move'>(null);
  const [error, setError] = useState<string | null>(null);
  const [revealed, setRevealed] = useState(false);
  const [dialog, setDialog] = useState<null | 'history' | 'receipts'>(null);
  const history = canShowHistory(store, msg);
  // Edited, or only moved (a move sets last_edit_timestamp too, to the same time).
  const mark = msg.last_edit_timestamp !== undefined && msg.last_edit_timestamp !== msg.last_moved_timestamp ? 'edited' : msg.last_moved_timestamp !== undefined ? 'moved' : null;
  const mine = msg.sender_id === store.selfId;
  const hidden = store.mutedUsers.has(msg.sender_id) && !revealed;
  // The organization's editing rules, as /register states them; the server checks them again.
  const limit = store.realm.message_content_edit_limit_seconds;
  const editable = mine && store.realm.allow_message_editing !== false && (!limit || Date.now() / 1000 - msg.timestamp < limit);
  const topicMuted = msg.type === 'stream' && store.isTopicMuted(msg.stream_id!, msg.subject);
  const starred = msg.flags.includes('starred');
  const unread = !msg.flags.includes('read');
  const run = (p: Promise<unknown>) => p.then(() => setError(null), (err) => setError(err instanceof ApiError ? err.message : String(err)));
  const link = `${location.origin}/${hashOf(store, msgNarrow(store, msg).withNear(msg.id))}`;
  const nameId = `sender-${msg.id}`;

  // Edited or moved, and starred: beside the name, or on their own where a continued message hides its head.
  const marks = (
    <>
      {mark &&
        (history ? (
          <button type="button" class="edited link" aria-label={`${mark === 'edited' ? 'Edited' : 'Moved'}: view the edit history`} onClick={() => setDialog('history')}>
            ({mark})
          </button>
        ) : (
          <span class="edited">({mark})</span>
        ))}
      {starred && (
        <span class="star-mark" role="img" aria-label="Starred">
          ★
        </span>
      )}
    </>
  );

  const onKey = (e: KeyboardEvent) => {
    if (e.target !== e.currentTarget) return;
    if (e.key === 'Enter' || e.key === 'r') {
      e.preventDefault();
      replyTo(store, msg);
    }
  };

  return (
    <article class={`message${props.continued ? ' continued' : ''}${unread ? ' unread' : ''}${props.selected ? ' selected' : ''}`} data-message-id={msg.id} tabIndex={props.selected ? 0 : -1} aria-labelledby={nameId} onFocus={() => props.onSelect(msg.id)} onClick={() => props.onSelect(msg.id)} onKeyDown={onKey}>
      {!props.continued && <Avatar url={msg.avatar_url} name={msg.sender_full_name} />}
      {props.continued && (mark || starred) && <div class="marks">{marks}</div>}
      <div class="body">
        <div class={props.continued ? 'head visually-hidden' : 'head'}>
          <span class="sender" id={nameId}>
            {msg.sender_full_name}
          </span>
          <StatusEmoji store={store} userId={msg.sender_id} />
          <a class="time" href={link} onMouseEnter={fullTime(msg.timestamp)} onFocus={fullTime(msg.timestamp)}>
            {formatTime(msg.timestamp, !!store.settings.twenty_four_hour_time)}
          </a>
          {!props.continued && marks}
        </div>
        {hidden ? (
          <p class="muted-message">
            A message from someone you muted.{' '}
            <button type="button" onClick={() => setRevealed(true)}>
              Show
            </button>
          </p>
        ) : editing ? (
          <EditForm store={store} msg={msg} mode={editing} onDone={() => setEditing(null)} />
        ) : widgetOf(msg) ? (
          <Widget store={store} msg={msg} />
        ) : (
          <div class="content rendered" dangerouslySetInnerHTML={{ __html: msg.match_content ?? msg.content }} />
        )}
        <Reactions store={store} msg={msg} run={run} />
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
      </div>
      <div class="actions" role="toolbar" aria-label="Message actions">
        <button type="button" aria-label="Add emoji reaction" aria-expanded={picker} onClick={() => setPicker(!picker)}>
          ☺
        </button>
        <button type="button" aria-label="Quote and reply" onClick={() => run(quoteAndReply(store, msg))}>
          ❝
        </button>
        {editable && (
          <button type="button" aria-label="Edit message" onClick={() => setEditing('content')}>
            ✎
          </button>
        )}
        <button type="button" aria-label={starred ? 'Unstar message' : 'Star message'} aria-pressed={starred} onClick={() => run(call('POST', '/messages/flags', { messages: [msg.id], op: starred ? 'remove' : 'add', flag: 'starred' }))}>
          {starred ? '★' : '☆'}
        </button>
        <button type="button" aria-label="More actions" aria-haspopup="menu" aria-expanded={menu} onClick={() => setMenu(!menu)}>
          ⋯
        </button>
        {menu && (
          <ul class="menu-list" role="menu" onClick={() => setMenu(false)}>
            <li role="none">
              <button role="menuitem" type="button" onClick={() => void navigator.clipboard?.writeText(link)}>
                Copy link to message
              </button>
            </li>
            <li role="none">
              <button role="menuitem" type="button" onClick={() => run(markUnreadFrom(props.list, msg))}>
                Mark as unread from here
              </button>
            </li>
            {history && (
              <li role="none">
                <button role="menuitem" type="button" onClick={() => setDialog('history')}>
                  View edit history
                </button>
              </li>
            )}
            {store.realm.enable_read_receipts && (
              <li role="none">
                <button role="menuitem" type="button" onClick={() => setDialog('receipts')}>
                  View read receipts
                </button>
              </li>
            )}
            {msg.type === 'stream' && (
              <li role="none">
                <button role="menuitem" type="button" onClick={() => setEditing('move')}>
                  Move messages
                </button>
              </li>
            )}
            {msg.type === 'stream' && (
              <li role="none">
                <button role="menuitem" type="button" onClick={() => run(call('POST', '/user_topics', { stream_id: msg.stream_id, topic: msg.subject, visibility_policy: topicMuted ? 0 : 1 }))}>
                  {topicMuted ? 'Unmute topic' : 'Mute topic'}
                </button>
              </li>
            )}
            {(mine || store.isAdmin) && (
              <li role="none">
                <button role="menuitem" type="button" class="danger" onClick={() => confirm('Delete this message?') && run(call('DELETE', `/messages/${msg.id}`))}>
                  Delete message
                </button>
              </li>
            )}
          </ul>
        )}
      </div>
      {dialog === 'history' && <EditHistory store={store} msg={msg} onClose={() => setDialog(null)} />}
      {dialog === 'receipts' && <ReadReceipts store={store} msg={msg} onClose={() => setDialog(null)} />}
      {picker && (
        <EmojiPicker
          store={store}
          onPick={(e) => {
            setPicker(false);
            run(call('POST', `/messages/${msg.id}/reactions`, { emoji_name: e.name, emoji_code: e.code, reaction_type: e.type }));
          }}
          onClose={() => setPicker(false)}
        />
      )}
    </article>
  );
}

/** The full date as the time's tooltip, written when first pointed at (formatting it for every message was a tenth of a first screen's script). */
const fullTime = (seconds: number) => (e: Event) => {
  const el = e.currentTarget as HTMLElement;
  if (!el.title) el.title = formatFull(seconds);
};

function msgNarrow(store: Store, msg: Message): Narrow {
  if (msg.type === 'stream') return Narrow.topic(msg.stream_id!, msg.subject);
  return Narrow.dm((msg.display_recipient as { id: number }[]).map((r) => r.id).filter((id) => id !== store.selfId));
}

function markUnreadFrom(list: MessageList, msg: Message): Promise<unknown> {
  return call('POST', '/messages/flags/narrow', { anchor: String(msg.id), include_anchor: true, num_before: 0, num_after: 1000, narrow: list.narrow.apiTerms(), op: 'remove', flag: 'read' });
}

function Reactions({ store, msg, run }: { store: Store; msg: Message; run: (p: Promise<unknown>) => void }) {
  if (msg.reactions.length === 0) return null;
  const groups = new Map<string, { r: Reaction; users: number[] }>();
  for (const r of msg.reactions) {
    const key = `${r.reaction_type}:${r.emoji_code}`;
    const g = groups.get(key) ?? { r, users: [] };
    g.users.push(r.user_id);
    groups.set(key, g);
  }
  return (
    <div class="reactions">
      {[...groups.values()].map(({ r, users }) => {
        const mine = users.includes(store.selfId);
        const names = users.map((id) => (id === store.selfId ? 'you' : store.userName(id))).join(', ');
        const custom = r.reaction_type === 'realm_emoji' ? store.realmEmoji.get(r.emoji_code) : undefined;
        return (
          <button type="button" class={`reaction${mine ? ' mine' : ''}`} aria-pressed={mine} aria-label={`:${r.emoji_name}: by ${names}`} title={`${names} reacted with :${r.emoji_name}:`} onClick={() => run(call(mine ? 'DELETE' : 'POST', `/messages/${msg.id}/reactions`, { emoji_name: r.emoji_name, emoji_code: r.emoji_code, reaction_type: r.reaction_type }))}>
            {custom ? <img src={custom.source_url} alt="" width={18} height={18} /> : <span aria-hidden="true">{r.reaction_type === 'zulip_extra_emoji' ? '⭐' : emojiChar(r.emoji_code)}</span>}
            <span class="n">{users.length}</span>
          </button>
        );
      })}
    </div>
  );
}

/** Editing a message's content (with its topic), or moving it to another channel or topic. */
function EditForm({ store, msg, mode, onDone }: { store: Store; msg: Message; mode: 'content' | 'move'; onDone: () => void }) {
  const [raw, setRaw] = useState('');
  const [topic, setTopic] = useState(msg.subject);
  const [streamId, setStreamId] = useState(msg.stream_id ?? 0);
  const [propagate, setPropagate] = useState('change_one');
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (mode === 'content') call('GET', `/messages/${msg.id}`, { apply_markdown: false }).then((r) => setRaw(r.message.content), (e) => setError(String(e.message)));
  }, [msg.id, mode]);
  const save = (e: Event) => {
    e.preventDefault();
    const params: Record<string, unknown> = mode === 'content' ? { content: raw } : { propagate_mode: propagate };
    if (msg.type === 'stream' && topic !== msg.subject) params.topic = topic;
    if (mode === 'move' && streamId !== msg.stream_id) params.stream_id = streamId;
    if (mode === 'content' && msg.type === 'stream' && topic !== msg.subject) params.propagate_mode = 'change_one';
    call('PATCH', `/messages/${msg.id}`, params).then(onDone, (err) => setError(err.message));
  };
  return (
    <form class="edit-form" onSubmit={save} onKeyDown={(e) => e.key === 'Escape' && onDone()}>
      {mode === 'move' && (
        <label>
          Channel
          <select value={streamId} onChange={(e) => setStreamId(Number((e.target as HTMLSelectElement).value))}>
            {[...store.subs.values()].map((s) => (
              <option value={s.stream_id}>{s.name}</option>
            ))}
          </select>
        </label>
      )}
      {msg.type === 'stream' && (
        <label>
          Topic
          <input value={topic} maxLength={store.realm.max_topic_length ?? 60} onInput={(e) => setTopic((e.target as HTMLInputElement).value)} />
        </label>
      )}
      {mode === 'move' && (
        <label>
          Which messages
          <select value={propagate} onChange={(e) => setPropagate((e.target as HTMLSelectElement).value)}>
            <option value="change_one">Only this message</option>
            <option value="change_later">This and later messages</option>
            <option value="change_all">All messages in the topic</option>
          </select>
        </label>
      )}
      {mode === 'content' && <textarea aria-label="Message content" value={raw ?? ''} rows={4} onInput={(e) => setRaw((e.target as HTMLTextAreaElement).value)} />}
      <div class="buttons">
        <button type="submit">{mode === 'move' ? 'Move' : 'Save'}</button>
        <button type="button" onClick={onDone}>
          Cancel
        </button>
      </div>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}
