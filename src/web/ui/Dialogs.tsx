import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, call } from '../api.js';
import type { Store } from '../store/store.js';
import type { Message } from '../types.js';
import { drawEmoji, lazyStyles, markExternalImages } from './lazy-css.js';
import { compareNames, formatFull } from './util.js';

/**
 * Modal views over the feed: a message's edit history, its read receipts, and an image at full
 * size. Each is a native <dialog> opened with showModal(): the browser keeps the focus inside,
 * closes it on Escape and gives the focus back to what opened it. What they show is fetched
 * when they open (it is not state the store keeps) and drawn as the server rendered it.
 */
export function Dialog({ label, onClose, children, class: cls }: { label: string; onClose: () => void; children: ComponentChildren; class?: string }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = ref.current!;
    if (!d.open) d.showModal();
    const closed = () => onClose();
    d.addEventListener('close', closed);
    return () => d.removeEventListener('close', closed);
  }, []);
  useEffect(() => {
    if (ref.current) {
      lazyStyles(ref.current);
      drawEmoji(ref.current);
      markExternalImages(ref.current);
    }
  });
  return (
    <dialog ref={ref} class={`dialog ${cls ?? ''}`} aria-label={label} onClick={(e) => e.target === ref.current && ref.current!.close()}>
      <div class="dialog-head">
        <h2>{label}</h2>
        <button type="button" class="close" aria-label="Close" onClick={() => ref.current!.close()}>
          ✕
        </button>
      </div>
      <div class="dialog-body">{children}</div>
    </dialog>
  );
}

/** A GET when the dialog opens: its answer, or the server's error to show. */
function useFetch<T>(path: string, params: Record<string, unknown>, pick: (r: any) => T): { value: T | null; error: string | null } {
  const [state, setState] = useState<{ value: T | null; error: string | null }>({ value: null, error: null });
  useEffect(() => {
    call('GET', path, params).then(
      (r) => setState({ value: pick(r), error: null }),
      (err) => setState({ value: null, error: err instanceof ApiError ? err.message : String(err) }),
    );
  }, [path]);
  return state;
}

/** The realm's edit history policy ('all', 'moves', 'none'), from the older flag where only that is sent. */
export function historyPolicy(store: Store): 'all' | 'moves' | 'none' {
  const p = store.realm.message_edit_history_visibility_policy;
  if (p === 'all' || p === 'moves' || p === 'none') return p;
  return store.realm.allow_edit_history === false ? 'none' : 'all';
}

/** Whether the edit history of a message can be shown: the reference's rule in message_edit_history.ts. */
export function canShowHistory(store: Store, msg: Message): boolean {
  const policy = historyPolicy(store);
  if (policy === 'all') return msg.last_edit_timestamp !== undefined || msg.last_moved_timestamp !== undefined;
  return policy === 'moves' && msg.last_moved_timestamp !== undefined;
}

interface HistoryEntry {
  topic?: string;
  prev_topic?: string;
  stream?: number;
  prev_stream?: number;
  rendered_content?: string;
  prev_content?: string;
  content_html_diff?: string;
  user_id: number | null;
  timestamp: number;
}

export function EditHistory({ store, msg, onClose }: { store: Store; msg: Message; onClose: () => void }) {
  const { value, error } = useFetch(`/messages/${msg.id}/history`, { allow_empty_topic_name: true }, (r) => r.message_history as HistoryEntry[]);
  const movesOnly = historyPolicy(store) === 'moves';
  const topicName = (t: string | undefined) => (t === '' ? (store.realm.empty_topic_display_name ?? 'general chat') : t);
  return (
    <Dialog label="Message edit history" onClose={onClose} class="edit-history">
      {error && <p role="alert" class="error">{error}</p>}
      {!value && !error && <p role="status">Loading…</p>}
      <ol class="plain history">
        {(value ?? []).map((h, i) => {
          const who = h.user_id === null ? (i === 0 || h.prev_content !== undefined ? msg.sender_full_name : 'Someone') : store.userName(h.user_id);
          const moved = h.prev_stream !== undefined || h.prev_topic !== undefined;
          const edited = h.prev_content !== undefined;
          if (i > 0 && movesOnly && !moved) return null;
          const what = i === 0 ? `Posted by ${who}` : edited ? `Edited by ${who}` : `Moved by ${who}`;
          return (
            <li key={i} class="history-entry">
              <p class="history-head">
                <b>{what}</b> <small>{formatFull(h.timestamp)}</small>
              </p>
              {h.prev_stream !== undefined && (
                <p>
                  Channel: #{store.streamName(h.prev_stream)} → #{store.streamName(h.stream ?? msg.stream_id!)}
                </p>
              )}
              {h.prev_topic !== undefined && (
                <p>
                  Topic: {topicName(h.prev_topic)} → {topicName(h.topic)}
                </p>
              )}
              {i === 0 && movesOnly && h.topic !== undefined && msg.type === 'stream' && <p>Topic: {topicName(h.topic)}</p>}
              {(i === 0 && !movesOnly) || (edited && !movesOnly) ? <div class="content rendered" dangerouslySetInnerHTML={{ __html: (i === 0 ? h.rendered_content : (h.content_html_diff ?? h.rendered_content)) ?? '' }} /> : null}
            </li>
          );
        })}
      </ol>
    </Dialog>
  );
}

export function ReadReceipts({ store, msg, onClose }: { store: Store; msg: Message; onClose: () => void }) {
  const { value, error } = useFetch(`/messages/${msg.id}/read_receipts`, {}, (r) => r.user_ids as number[]);
  const names = (value ?? []).map((id) => store.userName(id)).sort(compareNames);
  return (
    <Dialog label="Read receipts" onClose={onClose} class="read-receipts">
      {error && <p role="alert" class="error">{error}</p>}
      {!value && !error && <p role="status">Loading…</p>}
      {value && (
        <>
          <p>{names.length === 0 ? 'No one has read this message yet.' : `This message has been read by ${names.length} ${names.length === 1 ? 'person' : 'people'}:`}</p>
          <ul class="plain receipts">
            {names.map((n) => (
              <li key={n}>{n}</li>
            ))}
          </ul>
        </>
      )}
    </Dialog>
  );
}

/**
 * An image preview at full size (the reference's lightbox): the link the preview wraps, which
 * for an upload is this server's file and for anything else the server's /thumbnail address.
 */
export function Lightbox({ src, title, onClose }: { src: string; title: string; onClose: () => void }) {
  return (
    <Dialog label={title || 'Image'} onClose={onClose} class="lightbox">
      <img src={src} alt={title} />
      <p>
        <a href={src} target="_blank" rel="noopener noreferrer">
          Open the original
        </a>
      </p>
    </Dialog>
  );
}
