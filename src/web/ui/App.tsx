import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { call } from '../api.js';
import type { Connection, ConnectionState } from '../store/connection.js';
import { MessageList } from '../store/message-list.js';
import type { Store } from '../store/store.js';
import { Compose } from './Compose.js';
import { changed as composeChanged, compose, openCompose, restoreDraft } from './compose-state.js';
import { Drafts } from './Drafts.js';
import { Feed } from './Feed.js';
import { installShortcuts } from './keys.js';
import { notifyOnMessage } from './notify.js';
import { Recent } from './Recent.js';
import { Settings } from './Settings.js';
import { routeOf, type Route } from './route.js';
import { Sidebar } from './Sidebar.js';
import { hashOf, narrowTitle, parseSearch, searchText, useStore } from './util.js';

/**
 * The screen: a top bar (search, status), the sidebar, and the main area, which shows the view
 * the URL hash names (route.ts).
 */
export function App({ conn, store }: { conn: Connection; store: Store }) {
  useStore(store);
  const [route, setRoute] = useState<Route>(() => routeOf(location.hash, store.selfId));
  const [state, setState] = useState<ConnectionState>(conn.state);
  const [sidebarOpen, setSidebarOpen] = useState(false);
  const search = useRef<HTMLInputElement>(null);

  useEffect(() => {
    const onHash = () => {
      setRoute(routeOf(location.hash, store.selfId));
      setSidebarOpen(false);
    };
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, [store]);
  useEffect(() => {
    conn.onState = setState;
    store.onMessage = (msg) => notifyOnMessage(store, msg);
  }, [conn, store]);
  useEffect(() => installShortcuts({ store, search: () => search.current?.focus() }), [store]);
  // Presence, as the reference's web app reports it: every minute, active while the window has
  // focus. Others' presence comes back as events.
  useEffect(() => {
    let input = true;
    const mark = () => void (input = true);
    const report = () => {
      void call('POST', '/users/me/presence', { status: document.hasFocus() ? 'active' : 'idle', new_user_input: input, slim_presence: true }).catch(() => undefined);
      input = false;
    };
    report();
    const timer = setInterval(report, 60_000);
    document.addEventListener('keydown', mark);
    document.addEventListener('pointerdown', mark);
    return () => {
      clearInterval(timer);
      document.removeEventListener('keydown', mark);
      document.removeEventListener('pointerdown', mark);
    };
  }, []);

  // The open view's message list lives in the store, so events reach it.
  const narrow = route.kind === 'narrow' ? route.narrow : null;
  const list = useMemo(() => {
    if (!narrow) return null;
    if (store.list && store.list.narrow.equals(narrow) && store.list.narrow.near === narrow.near) return store.list;
    const l = new MessageList(narrow, store.selfId, () => store.changed());
    store.list = l;
    void l.load().then(() => store.noteMessages(l.messages));
    return l;
  }, [narrow && hashOf(store, narrow), store]);
  useEffect(() => {
    if (narrow?.streamId !== undefined)
      call('GET', `/users/me/${narrow.streamId}/topics`).then(
        (r) => store.setTopics(narrow.streamId!, r.topics),
        () => undefined,
      );
    // The compose box follows the view: a channel or topic view writes there.
    if (narrow && !compose.content) openCompose(store, narrow, false);
    document.title = `${narrow ? narrowTitle(store, narrow) : route.kind === 'recent' ? 'Recent conversations' : route.kind === 'drafts' ? 'Drafts' : 'Settings'} - ${store.realm.name}`;
  }, [list, route]);
  // A draft for this conversation that arrives while the box is empty (saved on another device
  // just now) fills it, as one found when the view opened does.
  useEffect(() => {
    if (narrow && !compose.content && restoreDraft(store, narrow)) composeChanged();
  }, [store.drafts]);

  // The theme: the setting (1 automatic, 2 dark, 3 light), "automatic" following the system's.
  useEffect(() => {
    const system = matchMedia('(prefers-color-scheme: dark)');
    const apply = () => {
      const scheme = store.settings.color_scheme;
      document.documentElement.dataset.theme = scheme === 2 || (scheme !== 3 && system.matches) ? 'dark' : 'light';
    };
    apply();
    system.addEventListener('change', apply);
    return () => system.removeEventListener('change', apply);
  }, [store.settings.color_scheme]);

  // The box shows the open search's text, set when the view changes only: a value bound on every
  // render put it back while someone typed (each arriving event re-renders), so a search typed
  // as a message came in was wiped before its Enter.
  const shownSearch = narrow?.isSearch || (narrow && narrow.terms.length > 2) ? searchText(store, narrow) : '';
  useEffect(() => {
    if (search.current) search.current.value = shownSearch;
  }, [shownSearch]);

  const onSearch = (e: Event) => {
    e.preventDefault();
    const text = search.current!.value.trim();
    location.hash = text ? hashOf(store, parseSearch(store, text)) : '#feed';
  };

  return (
    <div class={`app${sidebarOpen ? ' sidebar-open' : ''}`}>
      <header class="top">
        <button type="button" class="menu" aria-label="Show conversations" aria-expanded={sidebarOpen} onClick={() => setSidebarOpen(!sidebarOpen)}>
          ☰
        </button>
        <a class="org" href="#feed">
          {store.realm.name}
        </a>
        <form class="search" role="search" onSubmit={onSearch}>
          <input ref={search} id="search" type="search" aria-label="Search messages" placeholder="Search (channel: topic: dm: sender: is: has:)" />
        </form>
        <span class={`status ${state}`} role="status" aria-live="polite">
          {state === 'live' ? '' : state === 'offline' ? 'Reconnecting…' : 'Connecting…'}
        </span>
        <a href="#settings/profile" class="settings-link" aria-label="Settings">
          ⚙
        </a>
        <a href="/accounts/logout/" class="logout-link">
          Log out
        </a>
      </header>
      <nav class="sidebar" aria-label="Conversations">
        <Sidebar store={store} route={route} />
      </nav>
      <main class="main" id="main">
        {route.kind === 'settings' ? (
          <Settings store={store} section={route.section} id={route.id} />
        ) : route.kind === 'recent' ? (
          <Recent store={store} />
        ) : route.kind === 'drafts' ? (
          <Drafts store={store} />
        ) : (
          <>
            <div class="view-head">
              <h1 class="view-title" id="view-title">
                {narrowTitle(store, narrow!)}
              </h1>
              {narrow?.streamId !== undefined && (
                <a class="view-settings" href={`#channels/${narrow.streamId}`} aria-label={`Settings of #${store.streamName(narrow.streamId)}`} title="Channel settings">
                  ⚙
                </a>
              )}
            </div>
            {list && <Feed store={store} list={list} />}
            <Compose store={store} narrow={narrow!} />
          </>
        )}
      </main>
    </div>
  );
}
