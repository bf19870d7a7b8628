import { createHash, pbkdf2 as pbkdf2Cb, scrypt as scryptCb, timingSafeEqual } from 'node:crypto';

/**
 * Password hashes as Django stores them (`<algorithm>$...`), which the reference server's
 * exports of other tools can carry: imported people keep their passwords where the scheme is one
 * of Django's that we can verify. The reference hashes with Argon2 (PBKDF2 for older accounts);
 * the others are Django's remaining built-in hashers an installation may have configured.
 *
 * argon2 and bcrypt go through hash-wasm (WebAssembly: nothing to build on install, one library
 * for both); PBKDF2, scrypt and MD5 through node:crypto, with Django's encodings.
 */

/** The schemes verifyDjangoPassword understands, by Django's algorithm prefix. */
/**
 * Loaded with the first argon2 or bcrypt hash to check: only people imported from another
 * server have one, and the module costs about 0.9 MB of heap in every thread that loads it.
 */
const hashWasm = () => import('hash-wasm');

export const DJANGO_SCHEMES = ['argon2', 'pbkdf2_sha256', 'pbkdf2_sha1', 'bcrypt_sha256', 'bcrypt', 'scrypt', 'md5'] as const;

/** Whether a stored hash is Django's, in a scheme this server verifies (an unusable `!...` one is not). */
export function isDjangoHash(encoded: string | null | undefined): encoded is string {
  if (!encoded || encoded.startsWith('!')) return false;
  const algorithm = encoded.slice(0, encoded.indexOf('$'));
  return (DJANGO_SCHEMES as readonly string[]).includes(algorithm);
}

function equal(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

function pbkdf2(password: string, salt: string, iterations: number, digest: string, length: number): Promise<Buffer> {
  return new Promise((resolve, reject) => pbkdf2Cb(password, salt, iterations, length, digest, (err, key) => (err ? reject(err) : resolve(key))));
}

function scrypt(password: string, salt: string, n: number, r: number, p: number): Promise<Buffer> {
  // Django's ScryptPasswordHasher: 64-byte keys, maxmem 0 meaning its own 128 * n * r * 2 bound.
  const maxmem = 128 * n * r * 2 + 1024 * 1024;
  return new Promise((resolve, reject) => scryptCb(password, salt, 64, { N: n, r, p, maxmem }, (err, key) => (err ? reject(err) : resolve(key))));
}

/**
 * Checks a password against a Django-encoded hash; false for a wrong password, an unusable or
 * malformed hash, or a scheme not in DJANGO_SCHEMES.
 */
export async function verifyDjangoPassword(password: string, encoded: string): Promise<boolean> {
  if (!isDjangoHash(encoded)) return false;
  const [algorithm, ...rest] = encoded.split('$');
  try {
    switch (algorithm) {
      case 'argon2':
        // `argon2` + the argon2-cffi (PHC) string: argon2$argon2id$v=19$m=..,t=..,p=..$salt$hash.
        return await (await hashWasm()).argon2Verify({ password, hash: `$${rest.join('$')}` });
      case 'pbkdf2_sha256':
      case 'pbkdf2_sha1': {
        const [iterations, salt, hash] = rest;
        const digest = algorithm === 'pbkdf2_sha256' ? 'sha256' : 'sha1';
        const expected = Buffer.from(hash, 'base64');
        return equal(await pbkdf2(password, salt, Number(iterations), digest, expected.length), expected);
      }
      case 'bcrypt_sha256':
      case 'bcrypt': {
        // bcrypt_sha256$$2b$12$...: the password is first reduced to its SHA-256 hex digest.
        const input = algorithm === 'bcrypt_sha256' ? createHash('sha256').update(password).digest('hex') : password;
        return await (await hashWasm()).bcryptVerify({ password: input, hash: `$${rest.slice(1).join('$')}` });
      }
      case 'scrypt': {
        const [salt, n, r, p, hash] = rest;
        return equal(await scrypt(password, salt, Number(n), Number(r), Number(p)), Buffer.from(hash, 'base64'));
      }
      case 'md5': {
        const [salt, hash] = rest;
        return equal(Buffer.from(createHash('md5').update(salt + password).digest('hex')), Buffer.from(hash));
      }
    }
  } catch {
    // A malformed hash (bad parameters, bad base64) verifies nothing.
    return false;
  }
  return false;
}
