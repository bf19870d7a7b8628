import { render } from 'preact';
import './styles/app.css';
import { Connection } from './store/connection.js';
import { App } from './ui/App.js';

/**
 * The web app's entry: register, then render. Everything after comes through the event queue.
 */
const root = document.getElementById('app')!;
const conn = new Connection();
conn.onStore = (store) => render(<App conn={conn} store={store} />, root);
conn.start().catch((err) => {
  root.innerHTML = '';
  const p = document.createElement('p');
  p.className = 'fatal';
  p.setAttribute('role', 'alert');
  p.textContent = `Could not load: ${err instanceof Error ? err.message : String(err)}`;
  root.append(p);
});
