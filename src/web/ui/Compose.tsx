import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, call } from '../api.js';
import { conversationKey, Narrow } from '../store/narrow.js';
import type { Store } from '../store/store.js';
import { useTypeahead } from './Autocomplete.js';
import { enterAction, MOD_KEY, SendKeys } from './SendKeys.js';
import { changed, compose, listeners, saveDraft, target } from './compose-state.js';
import { startUpload, type Upload } from './uploads.js';
import { dmTitle } from './util.js';

/**
 * The compose box (compose-state.ts holds what it writes). Drafts are saved on the server while
 * typing; typing notices go out as the reference's web app sends them (start, renewed every
 * 10 s; stop). Which key sends is the person's enter_sends setting, shown by the Send button
 * and switched in one click from the send options beside it.
 */
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
    if (e.key !== 'Enter' || e.isComposing) return;
    const action = enterAction(!!store.settings.enter_sends, e);
    if (action === 'send') {
      e.preventDefault();
      void send();
    } else if (action === 'newline') {
      e.preventDefault();
      const el = e.target as HTMLTextAreaElement;
      const at = el.selectionStart;
      setContent(`${el.value.slice(0, at)}\n${el.value.slice(el.selectionEnd)}`, at + 1);
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
          placeholder={store.settings.enter_sends ? 'Message (Enter to send, Shift+Enter for a new line)' : `Message (${MOD_KEY}+Enter to send, Enter for a new line)`}
          aria-describedby="send-hint"
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
        <button type="button" aria-expanded={scheduling} onClick={() => setScheduling(!scheduling)}>
          Schedule
        </button>
        <button type="button" class="send" id="compose-send" aria-keyshortcuts={store.settings.enter_sends ? 'Enter' : 'Control+Enter'} onClick={() => void send()}>
          Send
        </button>
        <SendKeys store={store} onSchedule={() => setScheduling(true)} />
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

