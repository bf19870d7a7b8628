import { BlockList, isIP } from 'node:net';

/**
 * Sets of client addresses named in the config (trustedProxies, monitoring.allowFrom): single
 * addresses and CIDR ranges, IPv4 and IPv6, checked with Node's BlockList. An IPv4 address that
 * reaches a dual-stack socket as `::ffff:a.b.c.d` is matched as the IPv4 address it is.
 */
export interface AddressSet {
  has(address: string): boolean;
  readonly empty: boolean;
}

/** The problem with one entry, or null when it is an address or a CIDR range. */
export function rangeProblem(entry: string): string | null {
  const [address, bits, extra] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || extra !== undefined) return `"${entry}" is not an address or a CIDR range (such as 10.0.0.0/8 or fd00::/8)`;
  if (bits === undefined) return null;
  const max = family === 4 ? 32 : 128;
  if (!/^\d+$/.test(bits) || Number(bits) > max) return `"${entry}": the prefix length must be 0 to ${max}`;
  return null;
}

/** Strips the IPv4-mapped prefix (`::ffff:127.0.0.1` is 127.0.0.1). */
export function plainAddress(address: string): string {
  return address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
}

export function addressSet(entries: readonly string[]): AddressSet {
  const list = new BlockList();
  for (const entry of entries) {
    const problem = rangeProblem(entry);
    if (problem) throw new Error(problem);
    const [address, bits] = entry.split('/');
    const type = isIP(address) === 4 ? 'ipv4' : 'ipv6';
    if (bits === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(bits), type);
  }
  return {
    empty: entries.length === 0,
    has(raw: string) {
      const address = plainAddress(raw);
      const family = isIP(address);
      return family !== 0 && list.check(address, family === 4 ? 'ipv4' : 'ipv6');
    },
  };
}
