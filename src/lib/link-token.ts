import { createHash, randomBytes } from 'node:crypto';

/**
 * The secrets of links the server mails (a password reset, an address change): 32 random bytes
 * in base64url, of which only the SHA-256 is stored, so that neither the store, a backup nor a
 * log of either holds anything that works as a link.
 */
export const LINK_TOKEN_FORMAT = /^[A-Za-z0-9_-]{43}$/;

export function newLinkToken(): string {
  return randomBytes(32).toString('base64url');
}

/** The stored form of a link's token: its SHA-256, in hex. */
export function linkTokenDigest(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
