import t from 'tap';
import { isDjangoHash, verifyDjangoPassword } from '../../src/lib/django-hashers.js';
import { DJANGO_PREFIX, verifyPassword } from '../../src/lib/auth.js';

/**
 * Django's password hashes, as imported accounts keep them. Each was made by Python's own
 * implementation (argon2-cffi with Django's Argon2PasswordHasher parameters, hashlib's PBKDF2,
 * scrypt and MD5, the bcrypt package with Django's SHA-256 pre-hash), not by the code tested.
 */
const CASES: [string, string, string][] = [
  ['argon2', 'old-password-1', 'argon2$argon2id$v=19$m=102400,t=2,p=8$D8gx01y5Iwnlfmm/BOX06Q$ioejCqGdVtMHeF/lkGrYpw'],
  ['pbkdf2_sha256', 'old-password-2', 'pbkdf2_sha256$870000$Xk3sN0vQm2LpYt8RwZa1Bc$IL8ITBXJSIFYUmxcbh2+YUJ/cukCXQ7wZBhVI0KmOKE='],
  ['bcrypt_sha256', 'old-password-3', 'bcrypt_sha256$$2b$12$KD1deNV4sCIQCyJNxlkkYeMnDB343ZwhHjyFdg1a7ZgtxtN9HuoFO'],
  ['scrypt', 'secret-4', 'scrypt$c29tZXNhbHRzdHJpbmc$16384$8$1$mSKStzTFGmonCCFPu5ocus+kCpKfao3DdgXx1e7YvEA4NU2xhmMRbPHGIrmm5JisgqLi+uZOeGr1D0pOiwxZwA=='],
  ['md5', 'secret-5', 'md5$seasalt$7f2fb87027117375e7891e47d8e07003'],
  ['pbkdf2_sha1', 'secret-6', 'pbkdf2_sha1$260000$Qw1Er2Ty3Ui4Op5$sURO4FrFHVyTcNMp2gFiPXTVR2E='],
];

t.test('Django hashes verify with their password only', async (t) => {
  for (const [scheme, password, hash] of CASES) {
    t.ok(isDjangoHash(hash), `${scheme}: recognised`);
    t.equal(await verifyDjangoPassword(password, hash), true, `${scheme}: the right password`);
    t.equal(await verifyDjangoPassword(`${password}x`, hash), false, `${scheme}: a wrong one`);
    t.equal(await verifyPassword(password, DJANGO_PREFIX + hash), true, `${scheme}: through the login check, as imported accounts store it`);
  }
});

t.test('what is not a usable hash verifies nothing', async (t) => {
  t.notOk(isDjangoHash('!XyZunusable'), "Django's unusable password");
  t.notOk(isDjangoHash('sha1$salt$abc'), 'a scheme not verified here');
  t.equal(await verifyDjangoPassword('x', 'pbkdf2_sha256$abc$salt$not-base64'), false, 'malformed parameters');
  t.equal(await verifyDjangoPassword('x', 'argon2$argon2id$broken'), false, 'a broken argon2 string');
  t.equal(await verifyPassword('old-password-2', CASES[1][2]), false, 'a Django hash without the import\'s prefix is not taken for the server\'s own');
});
