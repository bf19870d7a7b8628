import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, call } from '../api.js';
import { conversationKey, Narrow } from '../store/narrow.js';
import type { Store } from '../store/store.js';
import type { Message } from '../types.js';
import { useTypeahead } from './Autocomplete.js';
import { startUpload, type Upload } from './uploads.js';
import { dmTitle, hashOf } from './util.js';

/**
 * The compose box. What is being written lives here, outside the store: a re-register (a new
 * store) or a change of view keeps it. Drafts are saved on the server while typing; typing
 * notices go out as the reference's web app sends them (start, renewed every 10 s; stop).
 */
export const compose = { type: 'stream' as 'stream' | 'private', stream: '', topic: '', to: '', content: '', draftId: null as number | null, focus: 0 };
const listeners = new Set<() => void>();
const changed = () => listeners.forEach((fn) => fn());

/** The compose box aimed at a view's conversation; `focus` puts the cursor in it. */
export function openCompose(store: Store, narrow: Narrow, focus: boolean, kind?: 'stream' | 'private'): void {
  const sid = narrow.streamId;
  if (kind === 'private' || (kind === undefined && narrow.dmIds)) {
    compose.type = 'private';
    compose.to = (narrow.dmIds ?? []).map((id) => store.users.get(id)?.email ?? '').filter(Boolean).join(', ');
  } else if (sid !== undefined || kind === 'stream') {
    compose.type = 'stream';
    if (sid !== undefined) compose.stream = store.streamName(sid);
    compose.topic = narrow.topic ?? (sid !== undefined ? '' : compose.topic);
  }
  if (!compose.content) restoreDraft(store, narrow);
  if (focus) compose.focus++;
  changed();
}

/** A draft the server keeps for this conversation (from this or another device) fills an empty box. */
function restoreDraft(store: Store, narrow: Narrow): void {
  const sid = narrow.streamId;
  const ids = narrow.dmIds ? [...narrow.dmIds].sort((a, b) => a - b).join(',') : null;
  const draft = store.drafts.find((d) =>
    sid !== undefined && narrow.topic !== undefined
      ? d.type === 'stream' && d.to[0] === sid && d.topic.toLowerCase() === narrow.topic.toLowerCase()
      : ids !== null && d.type === 'private' && [...d.to].sort((a, b) => a - b).join(',') === ids,
  );
  if (!draft) return;
  compose.content = draft.content;
  compose.draftId = draft.id ?? null;
}

export function replyTo(store: Store, msg: Message): void {
  const others = Array.isArray(msg.display_recipient) ? msg.display_recipient.map((r) => r.id).filter((id) => id !== store.selfId) : [];
  openCompose(store, msg.type === 'stream' ? Narrow.topic(msg.stream_id!, msg.subject) : Narrow.dm(others), true);
}

export async function quoteAndReply(store: Store, msg: Message): Promise<void> {
  replyTo(store, msg);
  const raw = (await call('GET', `/messages/${msg.id}`, { apply_markdown: false })).message.content as string;
  const link = `${location.origin}/${hashOf(store, (msg.type === 'stream' ? Narrow.topic(msg.stream_id!, msg.subject) : Narrow.dm([])).withNear(msg.id))}`;
  const quote = `@_**${msg.sender_full_name}|${msg.sender_id}** [said](${link}):\n\`\`\`quote\n${raw}\n\`\`\`\n`;
  compose.content = compose.content ? `${compose.content}\n${quote}` : quote;
  compose.focus++;
  changed();
}

/** The API's recipient of what is being written, or an error to show. */
function target(store: Store): { params: Record<string, unknown>; typing: Record<string, unknown> } | string {
  if (compose.type === 'stream') {
    const s = [...store.streams.values()].find((x) => x.name.toLowerCase() === compose.stream.trim().toLowerCase());
    if (!s) return compose.stream.trim() ? `There is no channel named ${compose.stream.trim()}.` : 'Choose a channel.';
    return { params: { type: 'stream', to: s.stream_id, topic: compose.topic.trim() }, typing: { type: 'stream', stream_id: s.stream_id, topic: compose.topic.trim() } };
  }
  const names = compose.to.split(',').map((s) => s.trim()).filter(Boolean);
  const ids: number[] = [];
  for (const n of names) {
    const u = [...store.users.values()].find((x) => x.email.toLowerCase() === n.toLowerCase() || x.full_name.toLowerCase() === n.toLowerCase());
    if (!u) return `Unknown recipient: ${n}`;
    ids.push(u.user_id);
  }
  if (ids.length === 0) return 'Choose who to write to.';
  return { params: { type: 'direct', to: ids }, typing: { type: 'direct', to: ids } };
}

export function Compose({ store, narrow }: { store: Store; narrow: Narrow }) {
  const [, tick] = useState(0);
  const [caret, setCaret] = useState(0);
  const [error, setError] = useState<string | null>(null);
  const [preview, setPreview] = useState<string | null>(null);
  const [uploads, setUploads] = useState<Upload[]>([]);
  const [scheduling, setScheduling] = useState(false);
  // Which recipient field has the focus: only its suggestions are drawn (a datalist of a
  // thousand people, redrawn with every event, was much of a busy screen's work).
  const [field, setField] = useState<string | null>(null);
  const focusField = { onFocus: (e: FocusEvent) => setField((e.target as HTMLElement).id), onBlur: () => setField(null) };
  const box = useRef<HTMLTextAreaElement>(null);
  const typingSent = useRef(0);
  const draftTimer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(() => {
    const fn = () => tick((n) => n + 1);
    listeners.add(fn);
    return () => void listeners.delete(fn);
  }, []);
  useEffect(() => {
    if (compose.focus) box.current?.focus();
  }, [compose.focus]);

  const setContent = (text: string, at: number) => {
    compose.content = text;
    // The box and its caret now, before the next key arrives (a later frame could put the caret
    // back behind what was typed meanwhile); the render then finds the value unchanged.
    if (box.current) {
      box.current.value = text;
      box.current.setSelectionRange(at, at);
    }
    setCaret(at);
    changed();
    noteTyping();
    saveDraftSoon();
  };
  const typeahead = useTypeahead(store, compose.content, caret, setContent);

  const noteTyping = () => {
    const t = target(store);
    if (typeof t === 'string' || !(compose.type === 'stream' ? store.settings.send_stream_typing_notifications !== false : store.settings.send_private_typing_notifications !== false)) return;
    if (Date.now() - typingSent.current < 10_000) return;
    typingSent.current = Date.now();
    void call('POST', '/typing', { ...t.typing, op: 'start' }).catch(() => undefined);
  };
  const stopTyping = () => {
    const t = target(store);
    if (typingSent.current && typeof t !== 'string') void call('POST', '/typing', { ...t.typing, op: 'stop' }).catch(() => undefined);
    typingSent.current = 0;
  };

  const saveDraftSoon = () => {
    if (store.settings.enable_drafts_synchronization === false) return;
    if (draftTimer.current) clearTimeout(draftTimer.current);
    draftTimer.current = setTimeout(() => void saveDraft(store), 2000);
  };

  const send = async (at?: number) => {
    const t = target(store);
    if (typeof t === 'string') return setError(t);
    if (!compose.content.trim()) return setError('Write something first.');
    const content = compose.content;
    try {
      if (at) await call('POST', '/scheduled_messages', { ...t.params, to: t.params.type === 'stream' ? t.params.to : t.params.to, content, scheduled_delivery_timestamp: at });
      // Read by its sender, as the reference's web app's messages are (its client is "website").
      else await call('POST', '/messages', { ...t.params, content, read_by_sender: true });
      if (compose.content === content) compose.content = '';
      setError(null);
      setPreview(null);
      setScheduling(false);
      stopTyping();
      if (draftTimer.current) clearTimeout(draftTimer.current);
      if (compose.draftId !== null) void call('DELETE', `/drafts/${compose.draftId}`).catch(() => undefined);
      compose.draftId = null;
      changed();
    } catch (err) {
      setError(err instanceof ApiError ? err.message : `Not sent: ${(err as Error).message}`);
    }
  };

  const onKeyDown = (e: KeyboardEvent) => {
    if (typeahead.onKeyDown(e)) return;
    if (e.key === 'Escape') {
      box.current?.blur();
      return;
    }
    if (e.key !== 'Enter') return;
    const enterSends = !!store.settings.enter_sends;
    if ((enterSends && !e.shiftKey && !e.ctrlKey && !e.metaKey) || (!enterSends && (e.ctrlKey || e.metaKey))) {
      e.preventDefault();
      void send();
    }
  };

  const addFiles = (files: FileList | File[]) => {
    for (const file of Array.from(files)) {
      const up = startUpload(file, (u) => setUploads((all) => [...all.filter((x) => x.id !== u.id), u].filter((x) => x.state === 'uploading' || x.state === 'failed')), (markdown) => {
        const text = compose.content;
        const pos = box.current?.selectionStart ?? text.length;
        setContent(`${text.slice(0, pos)}${pos && !/\s$/.test(text.slice(0, pos)) ? ' ' : ''}${markdown} ${text.slice(pos)}`, pos + markdown.length + 1);
      });
      setUploads((all) => [...all, up]);
    }
  };

  const key = compose.type === 'stream' ? null : conversationKey({ type: 'private', display_recipient: (narrow.dmIds ?? []).map((id) => ({ id })) as any, subject: '' }, store.selfId);
  const typingKey = narrow.streamId !== undefined && narrow.topic !== undefined ? `s:${narrow.streamId}:${narrow.topic.toLowerCase()}` : narrow.dmIds ? key : null;
  const typers = typingKey ? [...(store.typing.get(typingKey) ?? new Map())].filter(([, until]) => until > Date.now()).map(([id]) => store.userName(id)) : [];
  const maxLength = store.snapshot.max_message_length ?? 10000;

  return (
    <section
      class="compose"
      aria-label="Compose a message"
      onDragOver={(e) => e.preventDefault()}
      onDrop={(e) => {
        if (!e.dataTransfer?.files.length) return;
        e.preventDefault();
        addFiles(e.dataTransfer.files);
      }}
    >
      <p class="typing" aria-live="polite">
        {typers.length ? `${typers.join(', ')} ${typers.length === 1 ? 'is' : 'are'} typing…` : ''}
      </p>
      <div class="recipient">
        <div class="kind" role="group" aria-label="Message type">
          <button type="button" aria-pressed={compose.type === 'stream'} onClick={() => ((compose.type = 'stream'), changed())}>
            Channel
          </button>
          <button type="button" aria-pressed={compose.type === 'private'} onClick={() => ((compose.type = 'private'), changed())}>
            Direct message
          </button>
        </div>
        {compose.type === 'stream' ? (
          <>
            <input id="compose-channel" aria-label="Channel" list="compose-channels" placeholder="Channel" value={compose.stream} {...focusField} onInput={(e) => ((compose.stream = (e.target as HTMLInputElement).value), changed())} />
            <datalist id="compose-channels">
              {field === 'compose-channel' &&
                [...store.subs.values()].map((s) => (
                  <option value={s.name} />
                ))}
            </datalist>
            <input id="compose-topic" aria-label="Topic" list="compose-topics" placeholder={store.realm.mandatory_topics ? 'Topic' : `Topic (or ${store.realm.empty_topic_display_name ?? 'general chat'})`} maxLength={store.snapshot.max_topic_length ?? 60} value={compose.topic} {...focusField} onInput={(e) => ((compose.topic = (e.target as HTMLInputElement).value), changed())} />
            <datalist id="compose-topics">
              {field === 'compose-topic' &&
                [...(store.topics.get([...store.streams.values()].find((s) => s.name === compose.stream)?.stream_id ?? -1)?.values() ?? [])].map((t) => (
                  <option value={t.name} />
                ))}
            </datalist>
          </>
        ) : (
          <>
            <input id="compose-to" aria-label="To (names or email addresses, separated by commas)" list="compose-people" placeholder="To: names or email addresses" value={compose.to} {...focusField} onInput={(e) => ((compose.to = (e.target as HTMLInputElement).value), changed())} />
            <datalist id="compose-people">
              {field === 'compose-to' &&
                [...store.users.values()]
                  .filter((u) => u.is_active !== false && !u.is_bot)
                  .map((u) => (
                    <option value={u.email}>{u.full_name}</option>
                  ))}
            </datalist>
          </>
        )}
      </div>
      <div class="editor">
        <textarea
          ref={box}
          id="compose-box"
          aria-label={compose.type === 'stream' ? `Message #${compose.stream || 'channel'}${compose.topic ? ` > ${compose.topic}` : ''}` : `Message ${compose.to || 'someone'}`}
          placeholder={store.settings.enter_sends ? 'Message (Enter to send, Shift+Enter for a new line)' : 'Message (Ctrl+Enter to send)'}
          rows={3}
          maxLength={maxLength}
          value={compose.content}
          aria-autocomplete="list"
          aria-controls={typeahead.open ? 'compose-typeahead' : undefined}
          aria-activedescendant={typeahead.activeId}
          onInput={(e) => {
            const el = e.target as HTMLTextAreaElement;
            compose.content = el.value;
            setCaret(el.selectionStart);
            changed();
            noteTyping();
            saveDraftSoon();
          }}
          onKeyUp={(e) => setCaret((e.target as HTMLTextAreaElement).selectionStart)}
          onClick={(e) => setCaret((e.target as HTMLTextAreaElement).selectionStart)}
          onKeyDown={onKeyDown}
          onPaste={(e) => {
            if (e.clipboardData?.files.length) {
              e.preventDefault();
              addFiles(e.clipboardData.files);
            }
          }}
        />
        {typeahead.list}
      </div>
      {preview !== null && <div class="preview rendered" aria-label="Preview" dangerouslySetInnerHTML={{ __html: preview }} />}
      {uploads.map((u) => (
        <p class={`upload ${u.state}`} key={u.id} role="status">
          {u.state === 'failed' ? `Upload of ${u.name} failed: ${u.error}` : `Uploading ${u.name}… ${Math.round(u.progress * 100)}%`}
          <progress max={1} value={u.progress} aria-label={`Upload of ${u.name}`} />
        </p>
      ))}
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <div class="compose-buttons">
        <label class="file-button">
          <span>Attach files</span>
          <input type="file" multiple class="visually-hidden" aria-label="Attach files" onChange={(e) => addFiles((e.target as HTMLInputElement).files ?? [])} />
        </label>
        <button type="button" onClick={() => call('POST', '/messages/render', { content: compose.content }).then((r) => setPreview(r.rendered), (err) => setError(err.message))}>
          Preview
        </button>
        <label class="enter-sends">
          <input type="checkbox" checked={!!store.settings.enter_sends} onChange={(e) => void call('PATCH', '/settings', { enter_sends: (e.target as HTMLInputElement).checked })} />
          Enter sends
        </label>
        <button type="button" aria-expanded={scheduling} onClick={() => setScheduling(!scheduling)}>
          Schedule
        </button>
        <button type="button" class="send" id="compose-send" onClick={() => void send()}>
          Send
        </button>
      </div>
      {scheduling && <ScheduleForm onSchedule={(at) => void send(at)} />}
      {compose.type === 'private' && compose.to && <p class="visually-hidden">Writing to {dmTitle(store, narrow.dmIds ?? [])}</p>}
    </section>
  );
}

function ScheduleForm({ onSchedule }: { onSchedule: (at: number) => void }) {
  const [when, setWhen] = useState('');
  return (
    <form
      class="schedule"
      onSubmit={(e) => {
        e.preventDefault();
        const at = Math.floor(new Date(when).getTime() / 1000);
        if (at > Date.now() / 1000) onSchedule(at);
      }}
    >
      <label>
        Send at <input type="datetime-local" required value={when} onInput={(e) => setWhen((e.target as HTMLInputElement).value)} />
      </label>
      <button type="submit">Schedule message</button>
    </form>
  );
}

/** The text being written, kept as a draft on the server (POST /drafts, then PATCH). */
async function saveDraft(store: Store): Promise<void> {
  const t = target(store);
  if (!compose.content.trim() || typeof t === 'string') return;
  const draft = { type: compose.type, to: t.params.type === 'stream' ? [t.params.to] : t.params.to, topic: compose.type === 'stream' ? compose.topic : '', content: compose.content, timestamp: Math.floor(Date.now() / 1000) };
  try {
    if (compose.draftId === null) compose.draftId = (await call('POST', '/drafts', { drafts: [draft] })).ids[0];
    else await call('PATCH', `/drafts/${compose.draftId}`, { draft });
  } catch {
    compose.draftId = null;
  }
}
