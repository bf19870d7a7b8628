import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { call } from '../api.js';
import type { MessageList } from '../store/message-list.js';
import { conversationKey, Narrow } from '../store/narrow.js';
import type { Store } from '../store/store.js';
import type { Message } from '../types.js';
import { Lightbox } from './Dialogs.js';
import { drawEmoji, lazyStyles, markExternalImages } from './lazy-css.js';
import { MessageView } from './MessageView.js';
import { dmTitle, formatDay, hashOf } from './util.js';

/**
 * The message feed of a view: messages grouped under recipient bars, opened at the first
 * unread, older ones fetched by anchor when scrolled to the top, and marked read as they are
 * seen (on screen while the window has focus). Arrow keys move between messages. It is an
 * ARIA log, as chat transcripts are: a screen reader announces new messages as they arrive.
 */
export function Feed({ store, list }: { store: Store; list: MessageList }) {
  const scroller = useRef<HTMLDivElement>(null);
  const [selected, setSelected] = useState<number | null>(null);
  const [lightbox, setLightbox] = useState<{ src: string; title: string } | null>(null);
  const atBottom = useRef(true);
  const placed = useRef<MessageList | null>(null);
  const heightBefore = useRef<number | null>(null);
  const messages = list.messages;

  // First screen: at the first unread (or the linked message), else at the bottom.
  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el || list.loading || placed.current === list) return;
    placed.current = list;
    const target = list.anchor !== null ? el.querySelector<HTMLElement>(`[data-message-id="${list.anchor}"]`) : null;
    if (target && (list.narrow.near !== null || !list.foundNewest || target !== el.querySelector('[data-message-id]:last-of-type'))) {
      target.scrollIntoView({ block: list.narrow.near !== null ? 'center' : 'start' });
      setSelected(list.anchor);
    } else el.scrollTop = el.scrollHeight;
    // Whether to follow new messages: only when this placement left the view at its bottom
    // (the effect below would otherwise pull a view opened at its first unread down).
    atBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight < 40;
  }, [list, list.loading, messages.length]);

  // Older messages were put on top: keep the screen where it was.
  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    if (heightBefore.current !== null) {
      el.scrollTop += el.scrollHeight - heightBefore.current;
      heightBefore.current = null;
    } else if (atBottom.current && placed.current === list) el.scrollTop = el.scrollHeight;
    lazyStyles(el);
    drawEmoji(el);
    markExternalImages(el);
  });

  const onScroll = () => {
    const el = scroller.current!;
    atBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight < 40;
    if (el.scrollTop < 200 && !list.foundOldest && !list.loading && list.messages.length) {
      heightBefore.current = el.scrollHeight;
      void list.older();
    }
    if (atBottom.current && !list.foundNewest && !list.loading) void list.newer();
  };

  useMarkRead(store, scroller, list);

  const onKey = (e: KeyboardEvent) => {
    if ((e.target as HTMLElement).closest('textarea, input, [role=dialog], dialog')) return;
    if (e.key !== 'ArrowDown' && e.key !== 'ArrowUp' && e.key !== 'j' && e.key !== 'k') return;
    const index = messages.findIndex((m) => m.id === selected);
    const next = messages[Math.max(0, Math.min(messages.length - 1, index + (e.key === 'ArrowDown' || e.key === 'j' ? 1 : -1)))];
    if (!next) return;
    e.preventDefault();
    setSelected(next.id);
    scroller.current?.querySelector<HTMLElement>(`[data-message-id="${next.id}"]`)?.focus();
  };

  const rows: preact.JSX.Element[] = [];
  let prev: Message | null = null;
  for (const m of messages) {
    const newConv = !prev || conversationKey(prev, store.selfId) !== conversationKey(m, store.selfId);
    const newDay = !prev || formatDay(prev.timestamp) !== formatDay(m.timestamp);
    if (newConv || newDay) rows.push(<RecipientBar key={`bar-${m.id}`} store={store} msg={m} day={formatDay(m.timestamp)} />);
    const continued = !newConv && !newDay && prev!.sender_id === m.sender_id && m.timestamp - prev!.timestamp < 300;
    rows.push(<MessageView key={m.id} store={store} list={list} msg={m} continued={continued} selected={m.id === (selected ?? messages[messages.length - 1]?.id)} onSelect={setSelected} display={store.displayVersion} />);
    prev = m;
  }

  return (
    <div class="feed" ref={scroller} onScroll={onScroll} onKeyDown={onKey} onClick={(e) => onFeedClick(e, setLightbox)} role="log" aria-busy={list.loading} aria-labelledby="view-title" data-testid="feed">
      {list.foundOldest && messages.length > 0 && <p class="start">This is the beginning of the conversation.</p>}
      {list.loading && messages.length === 0 && <p class="loading" role="status">Loading messages…</p>}
      {!list.loading && messages.length === 0 && !list.error && <p class="empty">No messages here yet.</p>}
      {list.error && (
        <p class="error" role="alert">
          {list.error}
        </p>
      )}
      {rows}
      {lightbox && <Lightbox src={lightbox.src} title={lightbox.title} onClose={() => setLightbox(null)} />}
    </div>
  );
}

/**
 * Clicks inside message HTML: a spoiler's header opens and closes its content (the server
 * renders both, the content hidden by CSS); an image preview opens in the lightbox, at the
 * size the server's data-src-fullsize names (or the link it wraps).
 */
function onFeedClick(e: MouseEvent, open: (image: { src: string; title: string }) => void): void {
  const target = e.target as HTMLElement;
  const header = target.closest('.spoiler-header');
  if (header) header.closest('.spoiler-block')?.classList.toggle('open');
  const link = target.closest<HTMLAnchorElement>('.message_inline_image:not(.message_inline_video) a');
  if (!link || e.ctrlKey || e.metaKey || e.shiftKey) return;
  e.preventDefault();
  const img = link.querySelector('img');
  open({ src: img?.dataset.srcFullsize ?? link.getAttribute('href') ?? '', title: link.title || img?.alt || 'Image' });
}

function RecipientBar({ store, msg, day }: { store: Store; msg: Message; day: string }) {
  if (msg.type === 'stream') {
    const sid = msg.stream_id!;
    const color = store.subs.get(sid)?.color;
    const topic = msg.match_subject ?? null;
    return (
      <div class="recipient-bar" style={color ? { borderLeftColor: color } : undefined}>
        <a href={hashOf(store, Narrow.channel(sid))} class="bar-channel">
          #{store.streamName(sid)}
        </a>
        <span aria-hidden="true"> › </span>
        {topic !== null ? (
          <a href={hashOf(store, Narrow.topic(sid, msg.subject))} class="bar-topic" dangerouslySetInnerHTML={{ __html: topic }} />
        ) : (
          <a href={hashOf(store, Narrow.topic(sid, msg.subject))} class="bar-topic">
            {msg.subject || <i>{store.realm.empty_topic_display_name ?? 'general chat'}</i>}
          </a>
        )}
        <span class="bar-day">{day}</span>
      </div>
    );
  }
  const others = (msg.display_recipient as { id: number }[]).map((r) => r.id).filter((id) => id !== store.selfId);
  return (
    <div class="recipient-bar dm">
      <a href={hashOf(store, Narrow.dm(others))}>You and {dmTitle(store, others)}</a>
      <span class="bar-day">{day}</span>
    </div>
  );
}

/** Marks messages read once they have been on screen, while the window has focus. */
function useMarkRead(store: Store, scroller: { current: HTMLDivElement | null }, list: MessageList) {
  useEffect(() => {
    const el = scroller.current;
    if (!el) return;
    const seen = new Set<number>();
    let timer: ReturnType<typeof setTimeout> | null = null;
    const flush = () => {
      timer = null;
      const ids = [...seen].filter((id) => store.unreads.has(id) || list.get(id)?.flags.includes('read') === false);
      seen.clear();
      if (ids.length) void call('POST', '/messages/flags', { messages: ids, op: 'add', flag: 'read' }).catch(() => undefined);
    };
    const observer = new IntersectionObserver(
      (entries) => {
        if (!document.hasFocus() && document.visibilityState !== 'visible') return;
        for (const e of entries) {
          if (!e.isIntersecting) continue;
          const id = Number((e.target as HTMLElement).dataset.messageId);
          const msg = list.get(id);
          if (msg && !msg.flags.includes('read')) seen.add(id);
        }
        if (seen.size && !timer) timer = setTimeout(flush, 400);
      },
      { root: el, threshold: 0.6 },
    );
    const watch = () => el.querySelectorAll('[data-message-id]').forEach((m) => observer.observe(m));
    watch();
    const mo = new MutationObserver(watch);
    mo.observe(el, { childList: true });
    return () => {
      observer.disconnect();
      mo.disconnect();
      if (timer) clearTimeout(timer);
    };
  }, [list]);
}
