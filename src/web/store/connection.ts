import { ApiError, call, NetworkError } from '../api.js';
import type { ServerEvent } from '../types.js';
import type { MessageList } from './message-list.js';
import { Store } from './store.js';

/**
 * POST /register and the GET /events long-poll. A queue the server no longer has
 * (BAD_EVENT_QUEUE_ID: expired, or dropped) means registering again: a new store from the new
 * snapshot, and the open view fetched again, while the screen (and what the person is typing)
 * stays. A server that restarts keeps its queues (they are durable), so a poll that could not
 * connect simply tries again, and the queue hands over what happened meanwhile.
 */
export type ConnectionState = 'connecting' | 'live' | 'offline';

const CAPABILITIES = {
  notification_settings_null: true,
  bulk_message_deletion: true,
  user_avatar_url_field_optional: false,
  stream_typing_notifications: true,
  user_settings_object: true,
  empty_topic_name: true,
  archived_channels: true,
  user_list_incomplete: false,
};

/**
 * The events the store applies (store.ts handleEvent): the queue gets only these, so an event
 * nothing on screen reads never wakes the page. A type the app starts to read goes here too.
 */
export const EVENT_TYPES = [
  'message', 'update_message', 'delete_message', 'reaction', 'submessage', 'update_message_flags',
  'subscription', 'stream', 'typing', 'presence', 'realm_user', 'realm', 'user_settings', 'user_topic',
  'muted_users', 'user_group', 'realm_emoji', 'drafts', 'scheduled_messages', 'user_status',
];

/**
 * The sections of /register the store is built from (fetch_event_types), and nothing else: no
 * bots, linkifiers, profile fields or the other sections only a settings page reads, which
 * fetches them when it opens. (unread_msgs comes with `message` and `update_message_flags`
 * together; realm_user_groups is the groups' section, kept by `user_group` events.)
 */
const FETCH_TYPES = [
  'message', 'update_message_flags', 'subscription', 'stream', 'presence', 'realm_user', 'realm',
  'user_settings', 'user_topic', 'muted_users', 'realm_user_groups', 'realm_emoji', 'drafts',
  'scheduled_messages', 'user_status', 'recent_private_conversations',
];

/**
 * What the app asks /register for. client_gravatar: a person without an uploaded avatar comes
 * as null, drawn as an initial (the app loads nothing from another host, and the server skips
 * hashing a thousand addresses); slim_presence: presence by user id; no subscriber lists.
 */
export const REGISTER_PARAMS = {
  apply_markdown: true,
  client_gravatar: true,
  slim_presence: true,
  include_subscribers: false,
  event_types: EVENT_TYPES,
  fetch_event_types: FETCH_TYPES,
  client_capabilities: CAPABILITIES,
};

export class Connection {
  store: Store | null = null;
  state: ConnectionState = 'connecting';
  private queueId = '';
  private lastEventId = -1;
  private stopped = false;
  private abort: AbortController | null = null;
  /** Called with each new store (the first, and after every re-register). */
  onStore: (store: Store) => void = () => {};
  onState: (state: ConnectionState) => void = () => {};

  private setState(state: ConnectionState): void {
    if (state !== this.state) {
      this.state = state;
      this.onState(state);
    }
  }

  /**
   * `first` is the opening view's message list, already fetching: its GET /messages runs beside
   * /register instead of after it (the first screen waits for the slower of the two, not both).
   */
  async start(first: MessageList | null = null): Promise<void> {
    await this.register(first);
    void this.loop();
  }

  stop(): void {
    this.stopped = true;
    this.abort?.abort();
  }

  private async register(first: MessageList | null = null): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        const snapshot = await call('POST', '/register', REGISTER_PARAMS);
        const old = this.store;
        const store = new Store(snapshot);
        // The open view moves to the new store and fetches what it shows again.
        if (old?.list) {
          store.list = old.list;
          old.list.changed = () => store.changed();
          void old.list.refetch().then((done) => done, () => undefined);
        } else if (first) {
          // The list fetched beside /register: its messages may predate the queue, so what was
          // sent in between is fetched now (the snapshot's max_message_id says if anything was).
          store.list = first;
          first.adopt(store.selfId, () => store.changed());
          void first.loaded.then(() => first.catchUp(snapshot.max_message_id ?? 0)).then(() => store.noteMessages(first.messages), () => undefined);
        }
        store.onMessage = old?.onMessage ?? null;
        this.store = store;
        this.queueId = snapshot.queue_id;
        this.lastEventId = snapshot.last_event_id;
        this.setState('live');
        this.onStore(store);
        return;
      } catch (err) {
        if (!(err instanceof NetworkError) && !(err instanceof ApiError && err.status === 429)) throw err;
        this.setState('offline');
        await sleep(backoff(attempt));
      }
    }
  }

  private async loop(): Promise<void> {
    let failures = 0;
    while (!this.stopped) {
      this.abort = new AbortController();
      try {
        const res = await call<{ events: ServerEvent[] }>('GET', '/events', { queue_id: this.queueId, last_event_id: this.lastEventId }, { signal: this.abort.signal });
        failures = 0;
        this.setState('live');
        const events = res.events.filter((e) => e.id > this.lastEventId);
        for (const e of events) this.lastEventId = Math.max(this.lastEventId, e.id);
        const meaningful = events.filter((e) => e.type !== 'heartbeat');
        if (meaningful.length) this.store!.handleEvents(meaningful);
      } catch (err) {
        if (this.stopped) return;
        if (err instanceof ApiError && err.code === 'BAD_EVENT_QUEUE_ID') {
          await this.register();
          continue;
        }
        failures++;
        this.setState('offline');
        await sleep(backoff(failures));
      }
    }
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** 0.5 s, 1 s, 2 s ... at most 10 s, with jitter so that a restarted server is not met by every client at once. */
const backoff = (n: number) => Math.min(10_000, 500 * 2 ** Math.min(n, 5)) * (0.75 + Math.random() / 2);
