import t from 'tap';
import { field, http, tempDir } from '../../cli/run.js';
import { startSmtpSink } from '../../helpers/smtp-sink.js';
import { spawnServer, type ServerProcess } from '../../startup/spawn.js';

/**
 * Missed-message emails through kill -9 of a real server process: killed between the send and
 * the end of the batch, the email still goes, once; killed while the SMTP server holds the
 * email (taken, not yet acknowledged), it goes again after the restart with the same
 * Message-ID, so the repeat is recognisable for what it is.
 */
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

t.test('missed-message emails across kill -9', async (top) => {
  const sink = await startSmtpSink(top);
  const dataDir = tempDir(top, 'stoa-notify-kill-');
  const env = { STOA_PORT: '0', STOA_DATA_DIR: dataDir, STOA_SHARDS: '1', STOA_SMTP_HOST: '127.0.0.1', STOA_SMTP_PORT: String(sink.port) };
  let server: ServerProcess = await spawnServer(top, env);
  const owner = { email: field(server.stdout(), 'owner email')!, apiKey: field(server.stdout(), 'owner API key')! };
  const call = async (as: { email: string; apiKey: string }, method: string, path: string, form: Record<string, string> = {}) => {
    const res = await http(server.port, { method, path, host: `localhost:${server.port}`, auth: as, form });
    if (res.status !== 200) throw new Error(`${method} ${path}: ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const person = async (email: string, period: number) => {
    const created = await call(owner, 'POST', '/users', { email, password: 'a-long-password-1', full_name: email.split('@')[0] });
    const key = await http(server.port, { method: 'POST', path: '/fetch_api_key', host: `localhost:${server.port}`, form: { username: email, password: 'a-long-password-1' } });
    const creds = { email, apiKey: key.body.api_key as string, userId: created.user_id as number };
    await call(creds, 'PATCH', '/settings', { email_notifications_batching_period_seconds: String(period) });
    return creds;
  };
  const dm = (to: number, content: string) => call(owner, 'POST', '/messages', { type: 'private', to: JSON.stringify([to]), content });

  await top.test('killed between the send and the end of the batch', async (t) => {
    const kim = await person('kim@example.com', 3);
    await dm(kim.userId, 'sent just before the crash');
    t.equal((await server.stop('SIGKILL')).signal, 'SIGKILL', 'killed before the batch was due');
    t.same(sink.to(kim.email), [], 'nothing sent before the crash');
    server = await spawnServer(top, env);
    const [mail] = await sink.waitFor(kim.email);
    t.match(mail.parsed.text, /sent just before the crash/, 'sent after the restart');
    await dm(kim.userId, 'a later message');
    await sink.waitFor(kim.email, 2);
    t.equal(sink.to(kim.email).filter((m) => m.parsed.text?.includes('sent just before the crash')).length, 1, 'exactly once');
  });

  await top.test('killed while the SMTP server holds the email', async (t) => {
    const lee = await person('lee@example.com', 1);
    const first = sink.attempts;
    sink.policy = (n) => (n === first ? 'hang' : 'accept');
    await dm(lee.userId, 'held by the mail server');
    while (sink.held.length === 0) await sleep(100);
    t.equal((await server.stop('SIGKILL')).signal, 'SIGKILL', 'killed while the email was in the SMTP server\'s hands');
    server = await spawnServer(top, env);
    const [mail] = await sink.waitFor(lee.email);
    t.match(mail.parsed.text, /held by the mail server/, 'sent again after the restart');
    t.equal(mail.parsed.messageId, sink.held[0].parsed.messageId, 'with the Message-ID of the copy in doubt');
    await dm(lee.userId, 'and then another');
    await sink.waitFor(lee.email, 2);
    t.equal(sink.to(lee.email).filter((m) => m.parsed.text?.includes('held by the mail server')).length, 1, 'delivered once more, not twice');
  });

  // A batch's first notice is in its job, the later ones are rows of their own (email-batch.ts).
  await top.test('a batch of several notices, killed before it is due', async (t) => {
    const max = await person('max@example.com', 3);
    for (const n of ['one', 'two', 'three']) await dm(max.userId, `notice ${n} of the batch`);
    t.equal((await server.stop('SIGKILL')).signal, 'SIGKILL', 'killed before the batch was due');
    server = await spawnServer(top, env);
    const [mail] = await sink.waitFor(max.email);
    t.match(mail.parsed.text, /notice one of the batch[\s\S]*notice two of the batch[\s\S]*notice three of the batch/, 'the three notices in one email, in order');
    await dm(max.userId, 'after the batch went');
    const mails = await sink.waitFor(max.email, 2);
    t.notMatch(mails[1].parsed.text, /of the batch/, 'the next batch holds none of them again');
    t.match(mails[1].parsed.text, /after the batch went/, 'only its own');
  });
  await server.stop('SIGTERM');
});
