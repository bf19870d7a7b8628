import t from 'tap';
import { startTestServer } from '../helpers/server.js';

/**
 * The images a new organization's clients ask for before anyone uploads one: the default icon
 * (realm_icon in /server_settings, realm_icon_url in /register), the default logo, and the
 * :zulip: emoji a message or a reaction may use. Each is served, without credentials.
 */
function pngSize(bytes: Buffer): [number, number] {
  return [bytes.readUInt32BE(16), bytes.readUInt32BE(20)];
}

t.test('default images are served', async (t) => {
  const ts = await startTestServer(t);
  const base = `http://127.0.0.1:${ts.port}`;
  const get = async (url: string) => {
    const res = await fetch(new URL(url, base), { headers: { host: ts.server.config.externalHost } });
    return { status: res.status, type: res.headers.get('content-type'), etag: res.headers.get('etag'), bytes: Buffer.from(await res.arrayBuffer()) };
  };

  const settings = await ts.request('GET', '/server_settings', { auth: null });
  const icon = await get(settings.body.realm_icon);
  t.equal(icon.status, 200, `the default icon ${settings.body.realm_icon} is served`);
  t.equal(icon.type, 'image/png', 'as a PNG');
  t.same(pngSize(icon.bytes), [128, 128], '128x128, as its name says');

  const register = await ts.request('POST', '/register', { params: { fetch_event_types: ['realm'] } });
  const logo = await get(register.body.realm_logo_url);
  t.equal(logo.status, 200, `the default logo ${register.body.realm_logo_url} is served`);
  t.equal(logo.type, 'image/svg+xml', 'as SVG');
  t.match(logo.bytes.toString(), /^<svg /, 'an SVG document');
  t.notMatch(logo.bytes.toString(), /<script/i, 'with no script in it');

  const sent = await ts.request('POST', '/messages', { params: { type: 'stream', to: 'general', topic: 'icons', content: 'hello :zulip:' } });
  const message = await ts.request('GET', `/messages/${sent.body.id}`);
  const src = /<img [^>]*src="([^"]+)"[^>]*title="zulip"/.exec(message.body.message.content)?.[1] ?? /<img [^>]*src="([^"]+)"/.exec(message.body.message.content)?.[1];
  t.ok(src, 'the :zulip: emoji renders as an image');
  const emoji = await get(src!);
  t.equal(emoji.status, 200, `the :zulip: emoji ${src} is served`);
  t.equal(emoji.type, 'image/png', 'as a PNG');
  t.same(pngSize(emoji.bytes), [64, 64], '64x64');

  // Through node:http: fetch() adds Cache-Control: no-cache to a conditional request.
  const { request } = await import('node:http');
  const status = await new Promise<number>((resolve, reject) =>
    request(new URL(new URL(settings.body.realm_icon).pathname, base), { headers: { 'if-none-match': icon.etag! } }, (res) => {
      res.resume();
      resolve(res.statusCode!);
    }).on('error', reject).end(),
  );
  t.equal(status, 304, 'a client with the current copy gets 304');
});
