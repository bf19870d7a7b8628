import type { IncomingMessage } from 'node:http';
import { request } from 'node:http';
import t from 'tap';
import { loadConfig } from '../../src/lib/config.js';
import { proxyTrust } from '../../src/front/client-address.js';
import { startTestServer } from '../helpers/server.js';

/**
 * trustedProxies: behind a trusted proxy, the client address comes from X-Forwarded-For and the
 * scheme from X-Forwarded-Proto; from anyone else they are ignored. Through HTTP, with the
 * per-address limit as the observable (test/proxy/nginx.test.ts does the same through nginx).
 */
function fakeRequest(peer: string, headers: Record<string, string> = {}, encrypted = false): IncomingMessage {
  return { socket: { remoteAddress: peer, encrypted }, headers } as unknown as IncomingMessage;
}

t.test('the client of a request', async (t) => {
  const trust = proxyTrust(['127.0.0.1', '10.1.0.0/16', 'fd00::/8'], 'https');
  const cases: [string, IncomingMessage, string, string][] = [
    ['a direct client', fakeRequest('203.0.113.9', { 'x-forwarded-for': '198.51.100.1', 'x-forwarded-proto': 'https' }), '203.0.113.9', 'http'],
    ['behind a trusted proxy', fakeRequest('127.0.0.1', { 'x-forwarded-for': '198.51.100.1', 'x-forwarded-proto': 'https' }), '198.51.100.1', 'https'],
    ['a dual-stack peer address', fakeRequest('::ffff:127.0.0.1', { 'x-forwarded-for': '198.51.100.1' }), '198.51.100.1', 'http'],
    ['a client that sends its own X-Forwarded-For', fakeRequest('127.0.0.1', { 'x-forwarded-for': '6.6.6.6, 198.51.100.1' }), '198.51.100.1', 'http'],
    ['two trusted hops', fakeRequest('127.0.0.1', { 'x-forwarded-for': '6.6.6.6, 198.51.100.1, 10.1.2.3' }), '198.51.100.1', 'http'],
    ['an IPv6 client through an IPv6 proxy', fakeRequest('fd00::1', { 'x-forwarded-for': '2001:db8::7' }), '2001:db8::7', 'http'],
    ['garbage in the header', fakeRequest('127.0.0.1', { 'x-forwarded-for': 'not-an-address' }), '127.0.0.1', 'http'],
    ['garbage left of a real hop', fakeRequest('127.0.0.1', { 'x-forwarded-for': 'junk, 198.51.100.1' }), '198.51.100.1', 'http'],
    ['a trusted proxy without the header', fakeRequest('127.0.0.1'), '127.0.0.1', 'http'],
    ['a proto list', fakeRequest('127.0.0.1', { 'x-forwarded-proto': 'https, http' }), '127.0.0.1', 'https'],
    ['a TLS connection', fakeRequest('203.0.113.9', {}, true), '203.0.113.9', 'https'],
  ];
  for (const [what, req, address, scheme] of cases) t.same(trust.tag(req), { address, scheme }, what);
  t.same(proxyTrust([], 'http').tag(fakeRequest('127.0.0.1', { 'x-forwarded-for': '198.51.100.1', 'x-forwarded-proto': 'https' })), { address: '127.0.0.1', scheme: 'http' }, 'no trusted proxies: the headers are ignored');
});

t.test('trustedProxies entries are checked at start', async (t) => {
  t.throws(() => loadConfig({ STOA_TRUSTED_PROXIES: '127.0.0.1, 10.0.0.0/33' }), /invalid option "trustedProxies": "10\.0\.0\.0\/33": the prefix length must be 0 to 32/, 'a bad prefix');
  t.throws(() => loadConfig({ STOA_TRUSTED_PROXIES: 'proxy.example.com' }), /"proxy\.example\.com" is not an address or a CIDR range/, 'a host name');
  t.same(loadConfig({ STOA_TRUSTED_PROXIES: '127.0.0.1, ::1' }).trustedProxies, ['127.0.0.1', '::1'], 'STOA_TRUSTED_PROXIES is a comma-separated list');
});

/** GET /server_settings (no credentials: counted per address) from `local`, with headers. */
function get(port: number, local: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port, localAddress: local, path: '/api/v1/server_settings', headers, agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode!);
    })
      .on('error', reject)
      .end();
  });
}

t.test('per-address limits count the forwarded client behind a trusted proxy only', async (t) => {
  const defaults = loadConfig({});
  const limits = { ...defaults.rateLimits, enabled: true, perIp: [[600, 2]] as [number, number][] };

  t.test('with 127.0.0.1 trusted', async (t) => {
    const ts = await startTestServer(t, { rateLimits: limits, trustedProxies: ['127.0.0.1'] });
    const viaProxy = (client: string) => get(ts.port, '127.0.0.1', { 'x-forwarded-for': client });
    t.same([await viaProxy('198.51.100.1'), await viaProxy('198.51.100.1'), await viaProxy('198.51.100.1')], [200, 200, 429], 'one client behind the proxy uses up its allowance');
    t.equal(await viaProxy('198.51.100.2'), 200, 'and another behind the same proxy still has its own');
    const direct = (spoof: string) => get(ts.port, '127.0.0.2', { 'x-forwarded-for': spoof });
    t.same([await direct('192.0.2.1'), await direct('192.0.2.2'), await direct('192.0.2.3')], [200, 200, 429], 'a peer that is not a trusted proxy is counted by its own address, whatever X-Forwarded-For says');
  });

  t.test('with no trusted proxy', async (t) => {
    const ts = await startTestServer(t, { rateLimits: limits });
    const viaProxy = (client: string) => get(ts.port, '127.0.0.1', { 'x-forwarded-for': client });
    t.same([await viaProxy('198.51.100.1'), await viaProxy('198.51.100.2'), await viaProxy('198.51.100.3')], [200, 200, 429], 'X-Forwarded-For is ignored: every request counts against the peer');
  });
});
