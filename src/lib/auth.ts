import { randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import { verifyDjangoPassword } from './django-hashers.js';
import { rateLimited } from './errors.js';
import { HashQueueFull, scryptOffPool } from './hasher.js';

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A random alphanumeric string, as the reference's API keys (32 characters) are. */
export function randomAlphanumeric(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHANUMERIC[randomInt(ALPHANUMERIC.length)];
  return out;
}

export const generateApiKey = () => randomAlphanumeric(32);

/** Equal-time comparison: the time taken reveals nothing about where two keys first differ. */
export function constantTimeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  // Compare against itself on a length mismatch, so the work done stays the same.
  return timingSafeEqual(ab, ab.length === bb.length ? bb : ab) && ab.length === bb.length;
}

export interface BasicCredentials {
  username: string;
  password: string;
}

/** Parses `Authorization: Basic base64(user:pass)`; null when the header is not Basic. */
export function parseBasic(header: string | undefined): BasicCredentials | null {
  if (!header) return null;
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (!match) return null;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return null;
  return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

// scrypt with N=2^15, r=8: 32 MiB of memory per hash, which is what makes it memory-hard.
const SCRYPT = { N: 1 << 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };
const KEY_LENGTH = 32;

/** On the hashing thread (lib/hasher.ts); a full queue is RATE_LIMIT_HIT, with its retry-after. */
async function scrypt(password: string, salt: Buffer, opts: { N: number; r: number; p: number; maxmem: number }): Promise<Buffer> {
  try {
    return await scryptOffPool({ password: password.normalize('NFKC'), salt, keylen: KEY_LENGTH, ...opts });
  } catch (err) {
    if (err instanceof HashQueueFull) throw rateLimited(err.retryAfter);
    throw err;
  }
}

/** `scrypt$N$r$p$salt$hash`, so the parameters can be raised later without breaking old hashes. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scrypt(password, salt, SCRYPT);
  return ['scrypt', SCRYPT.N, SCRYPT.r, SCRYPT.p, salt.toString('base64'), hash.toString('base64')].join('$');
}

export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  if (!stored) return false;
  // An imported account's hash from the reference (Django's encoding), kept as it came.
  if (stored.startsWith(DJANGO_PREFIX)) return verifyDjangoPassword(password, stored.slice(DJANGO_PREFIX.length));
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt') return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = await scrypt(password, Buffer.from(salt, 'base64'), { N: Number(n), r: Number(r), p: Number(p), maxmem: SCRYPT.maxmem });
  return timingSafeEqual(expected, actual);
}

/** Marks a stored hash as Django's (lib/django-hashers.ts), which imports carry over. */
export const DJANGO_PREFIX = 'django$';

export const generatePassword = () => randomAlphanumeric(20);
