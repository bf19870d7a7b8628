import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { SMTPServer } from 'smtp-server';
import { Mailer } from '../../src/lib/mail.js';
import { missingTools, run, OPENSSL } from '../helpers/nginx.js';

/**
 * SMTP relays with a self-signed certificate, or none: email.smtp.caFile trusts the relay's
 * certificate, rejectUnauthorized: false trusts any, ignoreTLS never upgrades. Against a real
 * SMTP server offering STARTTLS with a certificate openssl makes here.
 */
const missing = missingTools()?.includes('openssl') ? missingTools() : null;
if (missing) {
  console.error(`\n*** SKIPPING the SMTP TLS test: ${missing} ***\n`);
  t.pass('skipped: openssl is not installed');
} else {
  t.test('SMTP TLS options', async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'stoa-smtp-tls-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const made = await run(OPENSSL, ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), '-days', '2', '-subj', '/CN=relay.test', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:relay.test']);
    t.equal(made.code, 0, 'a self-signed certificate');
    const received: { secure: boolean; to: string }[] = [];
    const server = new SMTPServer({
      authOptional: true,
      logger: false,
      key: readFileSync(join(dir, 'key.pem')),
      cert: readFileSync(join(dir, 'cert.pem')),
      onData(stream, session, callback) {
        stream.resume();
        stream.on('end', () => {
          received.push({ secure: session.secure, to: session.envelope.rcptTo[0].address });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const port = (server.server.address() as { port: number }).port;
    const send = async (smtp: Record<string, unknown>, to: string) => {
      const mailer = new Mailer({ dataDir: dir, externalHost: 'chat.test', email: { from: 'Stoa <noreply@chat.test>', smtp: { host: '127.0.0.1', port, ...smtp } } });
      try {
        return await mailer.send({ to, subject: 'test', text: 'hello' });
      } finally {
        mailer.close();
      }
    };

    const strict = await send({}, 'strict@example.com');
    t.equal(strict.via, 'outbox', 'by default a self-signed certificate is refused: the mail is kept in the outbox');
    t.match(strict.error, /self[- ]signed|certificate/i, 'with the certificate problem');

    const trusted = await send({ caFile: join(dir, 'cert.pem') }, 'ca@example.com');
    t.same([trusted.via, trusted.error], ['smtp', undefined], 'caFile: the relay\'s certificate is trusted');
    t.same(received.find((r) => r.to === 'ca@example.com'), { secure: true, to: 'ca@example.com' }, 'and the mail went over TLS');

    const lax = await send({ rejectUnauthorized: false }, 'lax@example.com');
    t.equal(lax.via, 'smtp', 'rejectUnauthorized: false accepts it too');
    t.equal(received.find((r) => r.to === 'lax@example.com')?.secure, true, 'still over TLS');

    const plain = await send({ ignoreTLS: true }, 'plain@example.com');
    t.equal(plain.via, 'smtp', 'ignoreTLS: sent without upgrading');
    t.equal(received.find((r) => r.to === 'plain@example.com')?.secure, false, 'in the clear, as asked');
  });
}
