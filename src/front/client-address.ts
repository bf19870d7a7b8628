import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { addressSet, plainAddress } from '../lib/address-ranges.js';
import { log } from '../lib/log.js';

/**
 * Who a request is from, behind a reverse proxy. The connection's peer is the client unless it
 * is one of `trustedProxies`; then the client is the rightmost address of X-Forwarded-For that
 * is not a trusted proxy (each trusted hop appends the address it was reached from, so what
 * lies left of the last untrusted one is whatever the client chose to send), and the scheme is
 * X-Forwarded-Proto's first value. From any other peer both headers are ignored: a client
 * cannot pick its own rate-limit key, address in the logs, or scheme.
 *
 * server.ts tags each request once as it arrives (`tag`); everything after (the per-address
 * limits, the shards' view of the address, logs, monitoring's allow list) reads the tag with
 * `clientAddress` / `requestScheme`.
 */
export interface Client {
  address: string;
  scheme: 'http' | 'https';
}

const CLIENT = Symbol('stoa.client');
type Tagged = IncomingMessage & { [CLIENT]?: Client };

export interface ProxyTrust {
  /** Works out the request's client once and keeps it on the request. */
  tag(req: IncomingMessage): Client;
}

export function proxyTrust(trustedProxies: readonly string[], configuredScheme: 'http' | 'https'): ProxyTrust {
  const trusted = addressSet(trustedProxies);
  let warned = false;
  return {
    tag(req) {
      const peer = plainAddress(req.socket.remoteAddress ?? '');
      const own: 'http' | 'https' = (req.socket as TLSSocket).encrypted ? 'https' : 'http';
      let client: Client = { address: peer, scheme: own };
      if (!trusted.empty && trusted.has(peer)) {
        client = { address: forwardedFor(req, peer, trusted.has), scheme: forwardedProto(req) ?? own };
        if (client.scheme !== configuredScheme && !warned) {
          warned = true;
          log.warn({ scheme: client.scheme, configured: configuredScheme }, `requests arrive by ${client.scheme} through the proxy, but realm URLs say ${configuredScheme}: set "scheme" (STOA_SCHEME) to ${client.scheme}`);
        }
      }
      (req as Tagged)[CLIENT] = client;
      return client;
    },
  };
}

function forwardedFor(req: IncomingMessage, peer: string, isTrusted: (address: string) => boolean): string {
  const header = req.headers['x-forwarded-for'];
  const hops = (Array.isArray(header) ? header.join(',') : (header ?? '')).split(',').map((s) => s.trim()).filter(Boolean);
  let client = peer;
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = plainAddress(hops[i].replace(/^\[(.*)\]$/, '$1'));
    // Not an address: whoever wrote it is not to be believed; the hop that passed it on is the client.
    if (isIP(hop) === 0) break;
    client = hop;
    if (!isTrusted(hop)) break;
  }
  return client;
}

function forwardedProto(req: IncomingMessage): 'http' | 'https' | null {
  const header = req.headers['x-forwarded-proto'];
  const first = (Array.isArray(header) ? header[0] : header)?.split(',')[0].trim().toLowerCase();
  return first === 'https' || first === 'http' ? first : null;
}

/** The client's address (see above); the connection's peer for a request never tagged. */
export function clientAddress(req: IncomingMessage): string {
  return (req as Tagged)[CLIENT]?.address ?? plainAddress(req.socket.remoteAddress ?? '');
}

/** The scheme the client used (see above). */
export function requestScheme(req: IncomingMessage): 'http' | 'https' {
  return (req as Tagged)[CLIENT]?.scheme ?? ((req.socket as TLSSocket).encrypted ? 'https' : 'http');
}
