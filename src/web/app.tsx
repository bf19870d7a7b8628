import { render } from 'preact';
import './styles/app.css';
import { Connection } from './store/connection.js';
import { MessageList } from './store/message-list.js';
import { App } from './ui/App.js';
import { routeOf } from './ui/route.js';

/**
 * The web app's entry: register, then render. Everything after comes through the event queue.
 * The opening view's messages are fetched at once, beside /register: its narrow is in the URL.
 */
const root = document.getElementById('app')!;
const opening = routeOf(location.hash, -1);
const first = opening.kind === 'narrow' ? new MessageList(opening.narrow, -1, () => {}) : null;
const conn = new Connection();
conn.onStore = (store) => render(<App conn={conn} store={store} />, root);
// /register goes out first: the server then most likely creates the queue before it reads the
// messages, and catchUp (connection.ts) covers the other order.
const started = conn.start(first);
void first?.load();
started.catch((err) => {
  root.innerHTML = '';
  const p = document.createElement('p');
  p.className = 'fatal';
  p.setAttribute('role', 'alert');
  p.textContent = `Could not load: ${err instanceof Error ? err.message : String(err)}`;
  root.append(p);
});
