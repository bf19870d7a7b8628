import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { request } from 'node:https';
import t from 'tap';
import { loadConfig } from '../../src/lib/config.js';
import { MAX_FILE_UPLOAD_SIZE_MIB } from '../../src/store/uploads.js';
import { freePort } from '../startup/spawn.js';
import { markdownBlock, missingTools, prepareSite, startNginx } from '../helpers/nginx.js';
import { startTestServer, type Credentials } from '../helpers/server.js';

/**
 * Debian's nginx with docs/OPERATIONS.md's configuration in front of a server: TLS (a
 * certificate openssl makes here), the plain-HTTP redirect, uploads up to the server's limit,
 * long-polls that outlast nginx's defaults, and per-address limits that tell the clients behind
 * the proxy apart (trustedProxies) and cannot be dodged with a forged X-Forwarded-For.
 */
const missing = missingTools();
if (missing) {
  console.error(`\n*** SKIPPING the nginx test: ${missing}. .ci/run installs it; install it to run this test. ***\n`);
  t.comment(`SKIPPED: ${missing}`);
  t.pass('skipped: nginx is not installed');
} else {
  t.test('nginx in front of Stoa, configured as docs/OPERATIONS.md says', async (t) => {
    const conf = markdownBlock('docs/OPERATIONS.md', 'nginx', /upstream stoa/);
    t.test('the guide\'s numbers match the server\'s', async (t) => {
      const body = Number(/^\s*client_max_body_size (\d+)m;/m.exec(conf)?.[1]);
      t.ok(body > MAX_FILE_UPLOAD_SIZE_MIB && body <= MAX_FILE_UPLOAD_SIZE_MIB + 2, `client_max_body_size ${body}m fits max_file_upload_size_mib (${MAX_FILE_UPLOAD_SIZE_MIB}) and its form`);
      const read = Number(/proxy_read_timeout (\d+)s;/.exec(conf)?.[1]);
      t.ok(read > loadConfig({}).heartbeatSeconds, `proxy_read_timeout ${read}s outlasts the default heartbeat (${loadConfig({}).heartbeatSeconds}s)`);
      t.match(conf, /proxy_set_header Host \$http_host;/, 'the Host header goes through');
      t.match(conf, /proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;/, 'X-Forwarded-For is set');
      t.match(conf, /proxy_set_header X-Forwarded-Proto \$scheme;/, 'and X-Forwarded-Proto');
    });

    const upstream = await freePort();
    const ports = { upstream, https: await freePort(), http: await freePort() };
    const site = await prepareSite(ports);
    const defaults = loadConfig({});
    const ts = await startTestServer(t, {
      port: upstream,
      externalHost: `${site.hostName}:${ports.https}`,
      scheme: 'https',
      trustedProxies: ['127.0.0.1'],
      heartbeatSeconds: 2,
      rateLimits: { ...defaults.rateLimits, enabled: true, perIp: [[600, 3]] },
    });
    const nginx = await startNginx(site, ports);
    t.teardown(() => nginx.stop());
    const host = `${site.hostName}:${ports.https}`;

    interface Answer {
      status: number;
      headers: Record<string, string | string[] | undefined>;
      body: Buffer;
      json: any;
    }
    const https = (path: string, opts: { method?: string; auth?: Credentials; body?: Buffer; headers?: Record<string, string>; local?: string } = {}): Promise<Answer> =>
      new Promise((resolve, reject) => {
        const headers: Record<string, string> = { host, ...opts.headers };
        if (opts.auth) headers.authorization = `Basic ${Buffer.from(`${opts.auth.email}:${opts.auth.apiKey}`).toString('base64')}`;
        if (opts.body) headers['content-length'] = String(opts.body.length);
        const req = request({ host: '127.0.0.1', port: ports.https, servername: site.hostName, ca: site.cert, method: opts.method ?? 'GET', path, headers, localAddress: opts.local, agent: false }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c) => chunks.push(c));
          res.on('end', () => {
            const body = Buffer.concat(chunks);
            let json: unknown = null;
            try {
              json = JSON.parse(body.toString());
            } catch {
              // a file, or nginx's own page
            }
            resolve({ status: res.statusCode!, headers: res.headers, body, json });
          });
        });
        req.on('error', reject);
        req.end(opts.body);
      });

    t.test('TLS, and plain HTTP sent to it', async (t) => {
      const settings = await https('/api/v1/server_settings', { local: '127.0.0.9' });
      t.equal(settings.status, 200, 'GET /server_settings over TLS through nginx');
      t.equal(settings.json.realm_url, `https://${host}`, 'the realm URL is the https one clients use');
      const plain = await new Promise<{ status: number; location?: string }>((resolve, reject) =>
        httpRequest({ host: '127.0.0.1', port: ports.http, path: '/api/v1/server_settings', headers: { host: site.hostName }, agent: false }, (res) => {
          res.resume();
          resolve({ status: res.statusCode!, location: res.headers.location });
        }).on('error', reject).end(),
      );
      t.equal(plain.status, 301, 'plain HTTP is redirected');
      t.equal(plain.location, `https://${site.hostName}/api/v1/server_settings`, 'to the same path over https');
    });

    const upload = (content: Buffer, name: string) => {
      const boundary = `stoa${randomBytes(8).toString('hex')}`;
      const body = Buffer.concat([
        Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: application/octet-stream\r\n\r\n`),
        content,
        Buffer.from(`\r\n--${boundary}--\r\n`),
      ]);
      return https('/api/v1/user_uploads', { method: 'POST', auth: ts.owner, body, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } });
    };

    t.test('uploads up to the server\'s limit pass the proxy', async (t) => {
      const small = randomBytes(3 * 1024 * 1024);
      const sent = await upload(small, 'three-megabytes.bin');
      t.equal(sent.status, 200, 'a 3 MB file (over nginx\'s default 1 MB) is stored');
      const back = await https(sent.json.url, { auth: ts.owner });
      t.equal(back.status, 200, 'and downloaded through the proxy');
      t.ok(back.body.equals(small), 'byte for byte');

      const largest = await upload(randomBytes(MAX_FILE_UPLOAD_SIZE_MIB * 1024 * 1024 - 4096), 'largest.bin');
      t.equal(largest.status, 200, `a file just under ${MAX_FILE_UPLOAD_SIZE_MIB} MiB is stored`);

      const over = await upload(randomBytes(MAX_FILE_UPLOAD_SIZE_MIB * 1024 * 1024 + 64 * 1024), 'too-large.bin');
      t.not(over.status, 200, 'a file over the limit is refused');
      t.match(over.json?.msg, /larger than this server's configured maximum upload size/, 'by Stoa, in the API\'s words, not by an nginx page');
    });

    t.test('long-polls outlast the heartbeat and deliver events', async (t) => {
      const queue = await https('/api/v1/register', { method: 'POST', auth: ts.owner, body: Buffer.from('event_types=["message","heartbeat"]'), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
      t.equal(queue.status, 200, 'a queue is registered through the proxy');
      const poll = (last: number) => https(`/api/v1/events?queue_id=${encodeURIComponent(queue.json.queue_id)}&last_event_id=${last}`, { auth: ts.owner });
      const heartbeat = await poll(-1);
      t.equal(heartbeat.status, 200, 'a poll with nothing to deliver is answered when the heartbeat is due');
      t.same(heartbeat.json.events.map((e: { type: string }) => e.type), ['heartbeat'], 'with a heartbeat');
      const parked = poll(heartbeat.json.events[0].id);
      await new Promise((resolve) => setTimeout(resolve, 500));
      const sent = await https('/api/v1/messages', { method: 'POST', auth: ts.owner, body: Buffer.from('type=stream&to=general&topic=proxy&content=through%20nginx'), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
      t.equal(sent.status, 200, 'a message is sent meanwhile');
      const events = (await parked).json.events as { type: string; message?: { id: number } }[];
      t.ok(events.some((e) => e.type === 'message' && e.message?.id === sent.json.id), 'the parked poll returns it');
    });

    t.test('per-address limits see each client behind the proxy', async (t) => {
      const from = (local: string, headers: Record<string, string> = {}) => https('/api/v1/server_settings', { local, headers }).then((r) => r.status);
      t.same([await from('127.0.0.2'), await from('127.0.0.2'), await from('127.0.0.2'), await from('127.0.0.2')], [200, 200, 200, 429], 'one client uses up its own allowance');
      t.equal(await from('127.0.0.2', { 'x-forwarded-for': '198.51.100.77' }), 429, 'and cannot get a new one by forging X-Forwarded-For');
      t.equal(await from('127.0.0.3'), 200, 'another client behind the same proxy is not affected');
      const limited = await https('/api/v1/server_settings', { local: '127.0.0.2' });
      t.match(limited.headers['retry-after'], /^\d+$/, 'the 429 keeps its Retry-After through the proxy');
    });
  });
}
