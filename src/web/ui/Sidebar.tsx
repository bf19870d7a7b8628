import type { ComponentChildren } from 'preact';
import { Narrow } from '../store/narrow.js';
import type { Store } from '../store/store.js';
import type { Route } from './route.js';
import { StatusEmoji } from './Status.js';
import { compareNames, dmTitle, hashOf, presenceOf } from './util.js';

/**
 * The left sidebar: the views, the subscribed channels with their unread counts (muted ones
 * dimmed), the open channel's topics, and the DM conversations. Every count comes from the
 * unread model; nothing here counts messages.
 */
function Count({ n, label, quiet }: { n: number; label: string; quiet?: boolean }) {
  if (n <= 0) return null;
  return (
    <span class={quiet ? 'count quiet' : 'count'} aria-label={quiet ? `${n} ${label}` : `${n} unread ${label}`}>
      {n}
    </span>
  );
}

function Item(props: { href: string; current: boolean; class?: string; children: ComponentChildren; count?: number; countLabel?: string; quiet?: boolean; testid?: string }) {
  return (
    <li class={props.class}>
      <a href={props.href} aria-current={props.current ? 'page' : undefined} data-testid={props.testid}>
        <span class="label">{props.children}</span>
        {props.count !== undefined && <Count n={props.count} label={props.countLabel ?? 'messages'} quiet={props.quiet} />}
      </a>
    </li>
  );
}

/** A channel's unread count as the reference's left sidebar shows it: muted topics left out. */
function channelUnreads(store: Store, streamId: number): number {
  let n = 0;
  const channelMuted = store.subs.get(streamId)?.is_muted;
  for (const [topic, count] of store.unreads.streamTopics(streamId)) if (channelMuted || !store.isTopicMuted(streamId, topic)) n += count;
  return n;
}

export function Sidebar({ store, route }: { store: Store; route: Route }) {
  const narrow = route.kind === 'narrow' ? route.narrow : null;
  const hash = location.hash || '#feed';
  const openStream = narrow?.streamId;
  const subs = [...store.subs.values()].filter((s) => !s.is_archived).sort((a, b) => Number(!!b.pin_to_top) - Number(!!a.pin_to_top) || compareNames(a.name, b.name));
  const dms = new Map<string, number[]>();
  for (const c of store.conversations.values()) if (c.dmIds) dms.set(c.key, c.dmIds);
  for (const key of store.unreads.dmConversations().keys()) if (!dms.has(key)) dms.set(key, key.slice(2) ? key.slice(2).split(',').map(Number) : []);
  const dmList = [...dms].sort(([a], [b]) => (store.conversations.get(b)?.maxId ?? Infinity) - (store.conversations.get(a)?.maxId ?? Infinity)).slice(0, 20);

  return (
    <div class="sidebar-inner">
      <h2 class="visually-hidden">Views</h2>
      <ul class="views">
        <Item href="#feed" current={hash === '#feed'} count={store.unreads.total} testid="all-messages">
          All messages
        </Item>
        <Item href="#recent" current={route.kind === 'recent'}>
          Recent conversations
        </Item>
        <Item href={hashOf(store, Narrow.is('mentioned'))} current={narrow?.term('is')?.operand === 'mentioned'} count={store.unreads.mentions.size} countLabel="mentions">
          Mentions
        </Item>
        <Item href={hashOf(store, Narrow.is('starred'))} current={narrow?.term('is')?.operand === 'starred'}>
          Starred messages
        </Item>
        <Item href="#drafts" current={route.kind === 'drafts'} count={store.drafts.length} countLabel="drafts" quiet testid="drafts">
          Drafts
        </Item>
      </ul>
      <h2 class="section">
        Channels
        <a href="#settings/channels" class="add" aria-label="Create or join a channel">
          +
        </a>
      </h2>
      <ul class="channels">
        {subs.map((sub) => {
          const open = sub.stream_id === openStream;
          const topics = open ? topicRows(store, sub.stream_id) : [];
          return (
            <>
              <li class={`channel${sub.is_muted ? ' muted' : ''}`} key={sub.stream_id}>
                <a href={hashOf(store, Narrow.channel(sub.stream_id))} aria-current={open && narrow?.topic === undefined ? 'page' : undefined} data-channel={sub.name}>
                  <span class="swatch" style={{ background: sub.color }} aria-hidden="true">
                    {sub.invite_only ? '🔒' : '#'}
                  </span>
                  <span class="label">{sub.name}</span>
                  <Count n={channelUnreads(store, sub.stream_id)} label={`messages in ${sub.name}`} />
                </a>
              </li>
              {topics.length > 0 && (
                <li class="topics-item">
                  <ul class="topics" aria-label={`Topics in ${sub.name}`}>
                    {topics.map((t) => (
                      <Item key={t.name} href={hashOf(store, Narrow.topic(sub.stream_id, t.name))} current={open && narrow?.topic?.toLowerCase() === t.name.toLowerCase()} class={t.muted ? 'topic muted' : 'topic'} count={t.unread} countLabel={`messages in ${t.name || 'general chat'}`}>
                        {t.name || <i>{store.realm.empty_topic_display_name ?? 'general chat'}</i>}
                      </Item>
                    ))}
                  </ul>
                </li>
              )}
            </>
          );
        })}
      </ul>
      <h2 class="section">Direct messages</h2>
      <ul class="dms">
        {dmList.map(([key, ids]) => (
          <Item key={key} href={hashOf(store, Narrow.dm(ids))} current={!!narrow?.dmIds && narrow.terms.length === 1 && narrow.dmIds.join(',') === ids.join(',')} count={store.unreads.dm(key)} countLabel="direct messages">
            {ids.length === 1 && <span class={`presence ${presenceOf(store, ids[0])}`} role="img" aria-label={presenceOf(store, ids[0])} />}
            {dmTitle(store, ids)}
            {ids.length === 1 && <StatusEmoji store={store} userId={ids[0]} />}
          </Item>
        ))}
        <li>
          <a href="#narrow/is/dm" class="all-dms">
            All direct messages
          </a>
        </li>
      </ul>
    </div>
  );
}

/** The open channel's topics: the most recent, and every one with unread messages. */
function topicRows(store: Store, streamId: number): { name: string; unread: number; muted: boolean }[] {
  const rows = new Map<string, { name: string; unread: number; muted: boolean; maxId: number }>();
  for (const t of store.topics.get(streamId)?.values() ?? []) rows.set(t.name.toLowerCase(), { name: t.name, unread: 0, muted: store.isTopicMuted(streamId, t.name), maxId: t.maxId });
  for (const [name, n] of store.unreads.streamTopics(streamId)) {
    const row = rows.get(name.toLowerCase()) ?? { name, unread: 0, muted: store.isTopicMuted(streamId, name), maxId: 0 };
    row.unread = n;
    rows.set(name.toLowerCase(), row);
  }
  const sorted = [...rows.values()].sort((a, b) => b.maxId - a.maxId);
  return sorted.filter((r, i) => i < 8 || r.unread > 0);
}
