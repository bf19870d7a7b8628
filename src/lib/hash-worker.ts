import { scryptSync } from 'node:crypto';

/**
 * The password-hashing thread (lib/hasher.ts): scrypt run synchronously here, so that it takes
 * this thread's time and never a slot of libuv's threadpool, which file I/O needs.
 */
export interface HashTask {
  password: string;
  salt: Uint8Array;
  keylen: number;
  N: number;
  r: number;
  p: number;
  maxmem: number;
}

export default function hash({ password, salt, keylen, N, r, p, maxmem }: HashTask): Uint8Array {
  return scryptSync(password, salt, keylen, { N, r, p, maxmem });
}
