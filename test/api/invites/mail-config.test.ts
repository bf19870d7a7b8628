import t from 'tap';
import { ConfigError, loadConfig, resolveConfig } from '../../../src/lib/config.js';
import { Mailer } from '../../../src/lib/mail.js';

/** The mail settings: validated loudly at start, and settable from the environment. */
t.test('mail configuration', async (t) => {
  t.test('the defaults: no SMTP server, ten-day invitations', async (t) => {
    const config = loadConfig({});
    t.same(config.email, { from: null, smtp: null }, 'mail goes to the outbox');
    t.equal(config.invitationValidityMinutes, 14400, '14,400 minutes');
    const mailer = new Mailer(resolveConfig(config, 9991));
    t.equal(mailer.usesSmtp, false, 'the mailer writes files');
    t.equal(mailer.from, 'Stoa <noreply@localhost>', 'from noreply at the external host, without its port');
  });

  t.test('STOA_SMTP_* and STOA_EMAIL_FROM', async (t) => {
    const config = loadConfig({ STOA_SMTP_HOST: 'smtp.example.org', STOA_SMTP_PORT: '2525', STOA_SMTP_USER: 'stoa', STOA_SMTP_PASSWORD: 's3cret', STOA_EMAIL_FROM: 'Chat <chat@example.org>' });
    t.same(config.email, { from: 'Chat <chat@example.org>', smtp: { host: 'smtp.example.org', port: 2525, user: 'stoa', password: 's3cret' } }, 'every part');
    const mailer = new Mailer(resolveConfig(config, 9991));
    t.equal(mailer.usesSmtp, true, 'the mailer uses SMTP');
    t.equal(mailer.from, 'Chat <chat@example.org>', 'from the configured address');
    mailer.close();
    t.throws(() => loadConfig({ STOA_SMTP_HOST: 'smtp.example.org', STOA_SMTP_PORT: 'twenty-five' }), new ConfigError('STOA_SMTP_PORT must be a non-negative integer, got "twenty-five"'), 'a bad port variable');
  });

  t.test('bad settings stop the start, naming the option', async (t) => {
    const bad: [object, RegExp][] = [
      [{ email: { smtp: { port: 25 } } }, /^invalid option "email\.smtp": must have required property 'host'$/],
      [{ email: { smtp: { host: 'smtp.example.org', port: 70000 } } }, /^invalid option "email\.smtp\.port": must be <= 65535$/],
      [{ email: { smtp: { host: 'smtp.example.org', tls: true } } }, /^invalid option "email\.smtp": must NOT have additional properties "tls"$/],
      [{ email: { sender: 'x' } }, /^invalid option "email": must NOT have additional properties "sender"$/],
      [{ invitationValidityMinutes: 0 }, /^invalid option "invitationValidityMinutes": must be >= 1$/],
    ];
    for (const [overrides, message] of bad) t.throws(() => loadConfig({}, overrides), { name: 'Error', message }, JSON.stringify(overrides));
  });
});
