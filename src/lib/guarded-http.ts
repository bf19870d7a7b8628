import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';

/**
 * HTTP requests to addresses users choose (outgoing webhooks), guarded against server-side
 * request forgery as the reference guards them with its Smokescreen proxy: unless allowed,
 * loopback, private, link-local, multicast and other special-purpose addresses are refused,
 * after DNS resolution, for IPv4 and IPv6. The connection is made to the very address that was
 * checked (the lookup hook hands it to the socket), so a name that resolves differently on a
 * second lookup cannot slip through.
 */
const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.88.99.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24],
  ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) blocked.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128], ['::1', 128], ['64:ff9b::', 96], ['100::', 64], ['2001::', 23], ['2001:db8::', 32], ['2002::', 16], ['fc00::', 7], ['fe80::', 10], ['fec0::', 10], ['ff00::', 8],
] as const) blocked.addSubnet(net, prefix, 'ipv6');

/** Whether an IP address is one outgoing requests may not reach. */
export function isDisallowedAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family !== 6) return true;
  // IPv4-mapped and -compatible forms reach the IPv4 address they carry.
  const mapped = /^(?:::ffff:|::)(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return blocked.check(mapped[1], 'ipv4');
  const hexMapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (hexMapped) {
    const [hi, lo] = [parseInt(hexMapped[1], 16), parseInt(hexMapped[2], 16)];
    return blocked.check(`${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`, 'ipv4');
  }
  return blocked.check(address, 'ipv6');
}

export class DisallowedAddressError extends Error {
  constructor(readonly address: string) {
    super(`the address ${address} is private or otherwise disallowed`);
  }
}

function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return (callback as (e: Error) => void)(err);
      const list = addresses as LookupAddress[];
      const bad = allowPrivate ? undefined : list.find((a) => isDisallowedAddress(a.address));
      // One bad address refuses the name: which one a connection would use is not ours to pick.
      if (bad) return (callback as (e: Error) => void)(new DisallowedAddressError(bad.address));
      if (options.all) return (callback as (e: null, a: LookupAddress[]) => void)(null, list);
      (callback as (e: null, a: string, f: number) => void)(null, list[0].address, list[0].family);
    });
  };
}

export interface GuardedResponse {
  status: number;
  body: string;
}

/**
 * POSTs `body` to `url`, at most `timeoutMs` for the whole exchange. Rejects with
 * DisallowedAddressError for a refused address, or a network error (connection, timeout:
 * `code` 'ETIMEDOUT').
 */
export function guardedPost(url: string, body: string, headers: Record<string, string>, opts: { timeoutMs: number; allowPrivate: boolean; maxBytes?: number }): Promise<GuardedResponse> {
  return new Promise((resolve, reject) => {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return reject(new Error(`invalid URL ${url}`));
    }
    if (target.protocol !== 'http:' && target.protocol !== 'https:') return reject(new Error(`unsupported scheme ${target.protocol}`));
    const host = target.hostname.replace(/^\[|\]$/g, '');
    // A literal address skips the lookup: check it here.
    if (isIP(host) && !opts.allowPrivate && isDisallowedAddress(host)) return reject(new DisallowedAddressError(host));
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(target, { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) }, lookup: guardedLookup(opts.allowPrivate), agent: false }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size <= (opts.maxBytes ?? 1 << 20)) chunks.push(chunk);
      });
      res.on('end', () => {
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') });
      });
      res.on('error', reject);
    });
    const timer = setTimeout(() => req.destroy(Object.assign(new Error(`timed out after ${opts.timeoutMs} ms`), { code: 'ETIMEDOUT' })), opts.timeoutMs);
    req.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    req.end(body);
  });
}
