import sharp from 'sharp';
import t from 'tap';
import { sendMail } from '../api/email-gateway/smtp-client.js';
import { stoa } from '../cli/run.js';
import { readFileSync } from 'node:fs';
import { call, hostOf, missingTools, startEtcd, startNode, startProxy, stoaCluster, stoaClusterOk, waitFor, type Answer } from './harness.js';

/**
 * What each node serves keeps working through the proxy after its organization moved: uploads,
 * avatars, data exports, invitation and sign-up pages, the email gateway (mail to any node is
 * posted by the owner), and backups and checks of each node's data directory.
 */
const missing = missingTools();
if (missing) {
  console.error(`\n*** SKIPPING the cluster features test: ${missing}. .ci/run installs etcd-server and nginx. ***\n`);
  t.pass(`skipped: ${missing}`);
} else {
  t.setTimeout(600_000);
  t.test('uploads, avatars, exports, invitations, sign-up and mail follow a moved organization', async (t) => {
    const etcd = await startEtcd(t);
    const [n1, n2] = await Promise.all([startNode(t, 'n1', etcd), startNode(t, 'n2', etcd)]);
    const created = JSON.parse(await stoaClusterOk(etcd, ['cluster', 'create-org', '--subdomain', 'acme', '--name', 'Acme', '--owner-email', 'owner@acme.test', '--node', 'n1', '--json']));
    const owner = { email: created.ownerEmail as string, apiKey: created.ownerApiKey as string };
    const proxy = await startProxy(t, etcd);
    const via = (method: string, path: string, opts: Parameters<typeof call>[4] = {}) => call(proxy.port, hostOf('acme'), method, path, { auth: owner, ...opts });
    const ok = (res: Answer, what: string) => {
      if (res.status !== 200) throw new Error(`${what}: ${res.status} ${res.raw.toString().slice(0, 300)}`);
      return res.body;
    };
    const multipart = (name: string, filename: string, type: string, bytes: Buffer) => {
      const boundary = `b${Date.now()}`;
      const body = Buffer.concat([Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="${filename}"\r\nContent-Type: ${type}\r\n\r\n`), bytes, Buffer.from(`\r\n--${boundary}--\r\n`)]);
      return { body, contentType: `multipart/form-data; boundary=${boundary}` };
    };

    // Before the move, through the proxy: a file, an avatar, a message linking the file, a
    // reusable invitation, a channel's email address, and a data export.
    const file = Buffer.from('the quarterly numbers\n'.repeat(100));
    const upload = ok(await via('POST', '/api/v1/user_uploads', multipart('file', 'numbers.txt', 'text/plain', file)), 'upload');
    const png = await sharp({ create: { width: 64, height: 64, channels: 3, background: { r: 200, g: 30, b: 30 } } }).png().toBuffer();
    ok(await via('POST', '/api/v1/users/me/avatar', multipart('file', 'me.png', 'image/png', png)), 'avatar');
    const avatarUrl = new URL(ok(await via('GET', '/api/v1/users/me'), 'me').avatar_url, 'http://acme.chat.test').pathname;
    ok(await via('POST', '/api/v1/messages', { params: { type: 'stream', to: 'general', topic: 'files', content: `[numbers](${upload.url})` } }), 'send');
    const invite = new URL(ok(await via('POST', '/api/v1/invites/multiuse', { params: { invite_expires_in_minutes: 600 } }), 'invite').invite_link);
    const general = ok(await via('GET', '/api/v1/get_stream_id', { params: { stream: 'general' } }), 'stream id').stream_id;
    const address = ok(await via('GET', `/api/v1/streams/${general}/email_address`), 'email address').email as string;
    t.match(address, /@mail\.chat\.test$/, 'the channel has an email address');
    ok(await via('POST', '/api/v1/export/realm'), 'export');
    const exported = await waitFor('the export to be built', async () => ok(await via('GET', '/api/v1/export/realm'), 'exports').exports.find((e: { export_url: string | null }) => e.export_url), 120_000);
    const exportPath = new URL(exported.export_url).pathname;
    const archive = (await via('GET', exportPath)).raw;

    const moved = await stoaClusterOk(etcd, ['cluster', 'move', 'acme', 'n2']);
    t.match(moved, /moved: \d+ rows, [1-9]\d* files/, 'the move carried the files');
    // Until the proxy has switched, the old node answers 503 with Retry-After, as clients expect.
    await waitFor('the proxy to route acme to n2', async () => (await via('GET', '/api/v1/users/me')).status === 200, 30_000);

    // After it, through the proxy, from n2.
    const fetched = await via('GET', new URL(upload.url, 'http://acme.chat.test').pathname);
    t.equal(fetched.status, 200, `the uploaded file is served (${fetched.raw.toString().slice(0, 200)})`);
    t.ok(fetched.raw.equals(file), 'with its bytes');
    const avatar = await call(proxy.port, hostOf('acme'), 'GET', avatarUrl);
    t.equal(avatar.status, 200, `the avatar is served (${avatarUrl}: ${avatar.raw.toString().slice(0, 200)})`);
    t.equal(avatar.headers['content-type'], 'image/png', 'as a PNG');
    const again = await call(proxy.port, hostOf('acme'), 'GET', exportPath);
    t.equal(again.status, 200, 'the data export is served at its URL');
    t.ok(again.raw.equals(archive), 'the same archive');
    const page = await call(proxy.port, hostOf('acme'), 'GET', invite.pathname);
    t.equal(page.status, 200, 'the invitation page shows');
    t.match(page.raw.toString(), /<form method="post"/, 'with its sign-up form');
    const form = new URLSearchParams({ email: 'wren@acme.test', full_name: 'Wren', password: 'wren-password-1' }).toString();
    const joined = await call(proxy.port, hostOf('acme'), 'POST', invite.pathname, { body: Buffer.from(form), contentType: 'application/x-www-form-urlencoded' });
    t.equal(joined.status, 200, 'signing up through it works');
    const key = ok(await call(proxy.port, hostOf('acme'), 'POST', '/api/v1/fetch_api_key', { params: { username: 'wren@acme.test', password: 'wren-password-1' } }), 'fetch_api_key').api_key;
    t.equal(ok(await call(proxy.port, hostOf('acme'), 'GET', '/api/v1/users/me', { auth: { email: 'wren@acme.test', apiKey: key } }), 'me').full_name, 'Wren', 'and the new account is on n2');

    // Mail to the channel's address, through either node's gateway, is posted by n2.
    for (const [node, port] of [['n1', n1.mailPort], ['n2', n2.mailPort]] as const) {
      const replies = await sendMail(port, 'someone@elsewhere.test', [address], `From: someone@elsewhere.test\nTo: ${address}\nSubject: via ${node}\n\nposted through ${node}\n`);
      t.match(replies.at(-2) ?? '', /^250/, `the gateway on ${node} accepts the mail`);
    }
    const topics = ok(await via('GET', `/api/v1/users/me/${general}/topics`), 'topics').topics.map((x: { name: string }) => x.name);
    t.ok(topics.includes('via n1') && topics.includes('via n2'), 'both mails are posted in the moved organization');
    const unknownAddress = await sendMail(n1.mailPort, 'someone@elsewhere.test', ['general.0123456789abcdef0123456789abcdef@mail.chat.test'], 'Subject: x\n\nx\n');
    t.match(unknownAddress.at(-1) ?? '', /^550/, 'an address no node knows is refused');

    // Each node's health and metrics, through the proxy by node id.
    for (const node of ['n1', 'n2']) {
      const health = await call(proxy.port, 'chat.test', 'GET', `/_nodes/${node}/health`);
      t.equal(health.status, 200, `${node}'s health through the proxy`);
      t.equal(health.body?.cluster?.node, node, `from ${node} itself, which holds its lease (${health.body?.cluster?.lease})`);
      const metrics = await call(proxy.port, 'chat.test', 'GET', `/_nodes/${node}/metrics`);
      t.match(metrics.raw.toString(), /stoa_http_requests_total/, `${node}'s metrics through the proxy`);
    }

    // A node added ahead of its start is listed, down, and routed to by the proxy's map.
    await stoaClusterOk(etcd, ['cluster', 'add-node', 'n9', '--address', '127.0.0.1:9']);
    t.match(await stoaClusterOk(etcd, ['cluster', 'nodes']), /^n9 {2}127\.0\.0\.1:9 {2}DOWN/m, 'stoa cluster nodes lists a node added but not started');
    await waitFor('the proxy map to name n9', () => readFileSync(proxy.mapFile, 'utf8').includes('server 127.0.0.1:9;'), 30_000);
    const bad = await stoaCluster(etcd, ['cluster', 'add-node', 'N 9', '--address', '127.0.0.1:9']);
    t.match(bad.stderr, /invalid node id "N 9"/, 'a bad node id is refused with the rule');

    // The old node's copy stays until the operator drops it; then it is gone from its store.
    t.match(await stoaClusterOk(etcd, ['cluster', 'drop-copy', 'acme', '--node', 'n1']), /dropped the copy of "acme" on n1 \(\d+ rows\)/, 'drop-copy removes the copy n1 kept');
    t.same((await call(n1.port, hostOf('acme'), 'GET', '/api/v1/users/me', { auth: owner })).status, 503, 'n1 still sends acme\'s clients on (the cluster knows where it is)');

    // Each node's data directory backs up and checks on its own.
    await n1.stop();
    const backup = await stoa(n1.dataDir, ['backup', `${n1.dataDir}-backup`], { STOA_ETCD: etcd.url, STOA_NODE_ID: 'n1' });
    t.equal(backup.code, 0, `stoa backup of n1: ${backup.stderr}`);
    const check = await stoa(n1.dataDir, ['check'], { STOA_ETCD: etcd.url, STOA_NODE_ID: 'n1' });
    t.equal(check.code, 0, `stoa check of n1: ${check.stdout.trim().split('\n').pop()}`);
    await stoaClusterOk(etcd, ['cluster', 'drop-copy', 'acme', '--node', 'n2']).then(
      () => t.fail('n2 serves acme: it has no copy to drop'),
      (err: Error) => t.match(err.message, /no copy of "acme" is held here/, 'drop-copy refuses the node that serves it'),
    );
  });
}
