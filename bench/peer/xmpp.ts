import { connect, type Socket } from 'node:net';
import { Pool } from 'undici';

/**
 * Minimal XMPP clients for the peer bench, over raw sockets and HTTP: just what joining a
 * multi-user chat room and exchanging groupchat messages takes (RFC 6120 stream, SASL ANONYMOUS,
 * resource binding, XEP-0045 join, XEP-0124/0206 BOSH). The server's stanzas are cut out of the
 * stream by their closing tags, which holds for what ejabberd sends here (bodies are plain text
 * the bench wrote). Both count the same: a groupchat message's body, when it has arrived.
 */
export interface RoomClient {
  /** Sends a groupchat message with this body. */
  say(body: string): void;
  close(): Promise<void>;
}

export type OnBody = (body: string, from: string) => void;

const NS_CLIENT = 'jabber:client';
// A self-closing element, or one with children up to its own closing tag (stanzas do not nest
// elements of their own name).
const STANZA = /<(message|presence|iq|success|failure|stream:features)\b(?:[^>]*?\/>|[^>]*>[\s\S]*?<\/\1>)/g;

function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function unescape(text: string): string {
  return text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, '&');
}

/** Cuts complete stanzas off the front of `buffer`; returns them and what is left. */
function stanzas(buffer: string): { found: string[]; rest: string } {
  const found: string[] = [];
  let end = 0;
  STANZA.lastIndex = 0;
  for (let m = STANZA.exec(buffer); m; m = STANZA.exec(buffer)) {
    found.push(m[0]);
    end = STANZA.lastIndex;
  }
  return { found, rest: buffer.slice(end) };
}

function messageBody(stanza: string): { body: string; from: string } | null {
  if (!stanza.startsWith('<message') || !/type=['"]groupchat['"]/.test(stanza)) return null;
  const body = /<body>([\s\S]*?)<\/body>/.exec(stanza);
  if (!body) return null;
  return { body: unescape(body[1]), from: /from=['"]([^'"]*)['"]/.exec(stanza)?.[1] ?? '' };
}

const joinStanza = (room: string, nick: string) => `<presence to='${room}/${nick}'><x xmlns='http://jabber.org/protocol/muc'><history maxstanzas='0'/></x></presence>`;
const groupchat = (room: string, body: string) => `<message to='${room}' type='groupchat'><body>${escape(body)}</body></message>`;
const openStream = (domain: string) => `<?xml version='1.0'?><stream:stream to='${domain}' xmlns='${NS_CLIENT}' xmlns:stream='http://etherx.jabber.org/streams' version='1.0'>`;

/** A client on a TCP connection (XMPP's own push: the server writes each message as it goes). */
export async function tcpClient(port: number, domain: string, room: string, nick: string, onBody: OnBody): Promise<RoomClient> {
  const socket: Socket = connect(port, '127.0.0.1');
  socket.setNoDelay(true);
  socket.setEncoding('utf8');
  let buffer = '';
  let waiter: { test: (s: string) => boolean; resolve: (s: string) => void } | null = null;
  const waitFor = (test: (s: string) => boolean) => new Promise<string>((resolve) => (waiter = { test, resolve }));
  socket.on('data', (chunk: string) => {
    buffer += chunk;
    const { found, rest } = stanzas(buffer);
    buffer = rest;
    for (const s of found) {
      const msg = messageBody(s);
      if (msg) onBody(msg.body, msg.from);
      else if (waiter?.test(s)) {
        const w = waiter;
        waiter = null;
        w.resolve(s);
      }
    }
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  socket.on('error', () => undefined);
  const features = waitFor((s) => s.startsWith('<stream:features'));
  socket.write(openStream(domain));
  await features;
  const success = waitFor((s) => s.startsWith('<success') || s.startsWith('<failure'));
  socket.write(`<auth xmlns='urn:ietf:params:xml:ns:xmpp-sasl' mechanism='ANONYMOUS'/>`);
  if (!(await success).startsWith('<success')) throw new Error('ejabberd refused the anonymous login');
  const features2 = waitFor((s) => s.startsWith('<stream:features'));
  socket.write(openStream(domain));
  await features2;
  const bound = waitFor((s) => s.startsWith('<iq') && s.includes("id='bind'"));
  socket.write(`<iq type='set' id='bind'><bind xmlns='urn:ietf:params:xml:ns:xmpp-bind'/></iq>`);
  await bound;
  const joined = waitFor((s) => s.startsWith('<presence') && s.includes("code='110'"));
  socket.write(joinStanza(room, nick));
  await joined;
  return {
    say: (body) => void socket.write(groupchat(room, body)),
    close: async () => {
      socket.end('</stream:stream>');
      socket.destroy();
    },
  };
}

/**
 * A client over BOSH (XEP-0124/0206), XMPP's HTTP long-polling: one request always held by the
 * server (hold=1), answered when there is something to deliver; a send is a request of its own,
 * which releases the one held.
 */
export async function boshClient(pool: Pool, domain: string, room: string, nick: string, onBody: OnBody): Promise<RoomClient> {
  let rid = Math.floor(Math.random() * 1e9);
  let sid = '';
  let open = true;
  const wrap = (inner: string, attrs = '') => `<body rid='${rid++}' sid='${sid}' xmlns='http://jabber.org/protocol/httpbind'${attrs}>${inner}</body>`;
  const post = async (body: string): Promise<string> => {
    const res = await pool.request({ method: 'POST', path: '/bosh', headers: { 'content-type': 'text/xml; charset=utf-8' }, body });
    const text = await res.body.text();
    if (res.statusCode !== 200) throw new Error(`BOSH ${res.statusCode}: ${text.slice(0, 200)}`);
    for (const s of stanzas(text).found) {
      const msg = messageBody(s);
      if (msg) onBody(msg.body, msg.from);
    }
    return text;
  };
  const created = await post(`<body content='text/xml; charset=utf-8' hold='1' rid='${rid++}' to='${domain}' ver='1.6' wait='60' xml:lang='en' xmpp:version='1.0' xmlns='http://jabber.org/protocol/httpbind' xmlns:xmpp='urn:xmpp:xbosh'/>`);
  sid = /sid=['"]([^'"]+)['"]/.exec(created)?.[1] ?? '';
  if (!sid) throw new Error(`no BOSH session: ${created.slice(0, 200)}`);
  // Each step's answer may come on the request that carries it or on the next empty one.
  const until = async (first: string, test: (text: string) => boolean) => {
    let text = await post(first);
    while (!test(text)) text = await post(wrap(''));
  };
  if (!created.includes('ANONYMOUS')) await until(wrap(''), (t) => t.includes('ANONYMOUS'));
  await until(wrap(`<auth xmlns='urn:ietf:params:xml:ns:xmpp-sasl' mechanism='ANONYMOUS'/>`), (t) => t.includes('<success'));
  await until(wrap('', ` xmpp:restart='true' xmlns:xmpp='urn:xmpp:xbosh' to='${domain}' xml:lang='en'`), (t) => t.includes('bind'));
  await until(wrap(`<iq type='set' id='bind' xmlns='${NS_CLIENT}'><bind xmlns='urn:ietf:params:xml:ns:xmpp-bind'/></iq>`), (t) => t.includes("id='bind'"));
  await until(wrap(joinStanza(room, nick).replace('<presence ', `<presence xmlns='${NS_CLIENT}' `)), (t) => t.includes("code='110'"));
  // BOSH allows hold + 1 requests at once: the held poll and one more. Messages said while both
  // are out wait, and go together with the next request.
  let outstanding = 0;
  let pending: string[] = [];
  const request = async () => {
    outstanding++;
    const body = wrap(pending.join(''));
    pending = [];
    try {
      // A request that failed (a connection reset, a gateway timeout on a crowded machine) is
      // sent again with the same rid: the connection manager answers a repeated rid with the
      // answer it gave it (XEP-0124 section 14.3), so the stanzas that answer carried, or the
      // messages the request said, are not lost with it.
      for (let attempt = 1; ; attempt++) {
        try {
          await post(body);
          return;
        } catch (err) {
          if (!open || attempt === 3) throw err;
          await new Promise((r) => setTimeout(r, 100 * attempt));
        }
      }
    } finally {
      outstanding--;
    }
  };
  const loop = (async () => {
    while (open) await request().catch(() => undefined);
  })();
  const flush = () => {
    if (pending.length > 0 && outstanding < 2) void request().then(flush, () => undefined);
  };
  return {
    say: (body) => {
      pending.push(groupchat(room, body).replace('<message ', `<message xmlns='${NS_CLIENT}' `));
      flush();
    },
    close: async () => {
      open = false;
      await post(wrap('', ` type='terminate'`)).catch(() => undefined);
      await loop;
    },
  };
}
