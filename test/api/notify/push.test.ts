import { statSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { stoa } from '../../cli/run.js';
import { startStandInBouncer } from '../../helpers/push-bouncer.js';
import { startTestServer } from '../../helpers/server.js';
import { startSmtpSink } from '../../helpers/smtp-sink.js';
import { world } from './people.js';

/**
 * Mobile push through the push notification service, against a stand-in that checks every
 * request as the service's own views do (helpers/push-bouncer.ts): nothing before `stoa push
 * register`; then the registration with the operator's consent, the devices forwarded, the
 * notifications and their payloads, retries while the service fails, removals after a read, and
 * what a refusal does.
 */
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const until = async (what: string, check: () => Promise<boolean>, timeoutMs = 60_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await sleep(200);
  }
};

t.test('mobile push notifications', async (t) => {
  const bouncer = await startStandInBouncer(t);
  const sink = await startSmtpSink(t);
  const ts = await startTestServer(t, { email: { from: null, smtp: { host: '127.0.0.1', port: sink.port } }, push: { servicesUrl: bouncer.url } });
  const w = world(ts, sink);
  const pia = await w.person('Pia Phone');
  const asPia = ts.as(pia);
  const apnsToken = 'ab'.repeat(32);
  const fcmToken = `fcm:${'x'.repeat(150)}`;
  t.equal((await asPia('POST', '/users/me/apns_device_token', { params: { token: apnsToken, appid: 'org.zulip.Zulip' } })).status, 200, 'an iPhone registers');
  t.equal((await asPia('POST', '/users/me/android_gcm_reg_id', { params: { token: fcmToken } })).status, 200, 'an Android phone registers');
  const cli = (args: string[], env: Record<string, string> = {}) =>
    stoa(ts.dataDir, ['push', 'register', ...args], { STOA_EXTERNAL_HOST: ts.server.config.externalHost, STOA_PUSH_SERVICES_URL: bouncer.url, ...env });
  const realmPush = async () => (await ts.request('POST', '/register', { params: { fetch_event_types: JSON.stringify(['realm']) } })).body.realm_push_notifications_enabled as boolean;
  const notifies = () => bouncer.to('push/notify');
  /** The first notify request after the first `from` whose Android payload passes. */
  const notifyWhere = async (from: number, pass: (payload: Record<string, unknown>) => boolean) => {
    for (;;) {
      const all = notifies();
      const hit = all.slice(from).find((r) => pass(r.json.gcm_payload as Record<string, unknown>));
      if (hit) return hit;
      await bouncer.waitFor('push/notify', all.length + 1);
    }
  };

  await t.test('nothing before the server is registered', async (t) => {
    t.equal((await ts.request('GET', '/server_settings', { auth: null })).body.push_notifications_enabled, false, 'server_settings says so');
    t.equal(await realmPush(), false, 'so does realm_push_notifications_enabled');
    await w.dm(ts.owner, [pia], 'before registration');
    await w.sentinel(pia);
    t.same(bouncer.requests, [], 'the service heard nothing: no device, no notification');
  });

  await t.test('stoa push register', async (t) => {
    const refused = await cli(['--contact-email', 'ops@stoa.test']);
    t.equal(refused.code, 1, 'without the operator\'s consent (and no terminal to ask on), nothing is registered');
    t.match(refused.stderr, /terms of service were not agreed to/, 'and it says why');
    t.match(refused.stdout, /This server's configured hostname: localhost:\d+/, 'after showing what would be shared');
    t.same(bouncer.requests, [], 'the service heard nothing');
    const bad = await cli(['--agree-to-terms-of-service', '--contact-email', 'ops@example.com']);
    t.equal(bad.code, 1, 'an address the service refuses');
    t.match(bad.stderr, /Error received from the push notification service: "Invalid server administrator email address: example\.com is not a valid email domain\."/, 'the service\'s reason, as it gave it');
    const ok = await cli(['--agree-to-terms-of-service', '--contact-email', 'ops@stoa.test']);
    t.equal(ok.code, 0, `registered${ok.stderr}`);
    t.match(ok.stdout, /Your server is now registered for the Mobile Push Notification Service!/, 'the reference\'s words');
    const [register] = bouncer.to('server/register');
    t.match(register.params, { hostname: ts.server.config.externalHost, contact_email: 'ops@stoa.test' }, 'the host name and contact address');
    const [analytics] = bouncer.to('server/analytics');
    const realms = JSON.parse(analytics.params.realms);
    t.equal(realms.length, 1, 'and the one organization');
    t.match(realms[0], { id: 1, name: 'Stoa', deactivated: false }, 'its metadata');
    t.equal(statSync(join(ts.dataDir, 'push-registration.json')).mode & 0o777, 0o600, 'the credentials kept readable by the operator only');
    t.equal((await cli(['--agree-to-terms-of-service', '--contact-email', 'ops@stoa.test'])).stdout.includes('successfully updated'), true, 'registering again updates the registration');

    await until('server_settings says push notifications work', async () => (await ts.request('GET', '/server_settings', { auth: null })).body.push_notifications_enabled === true);
    await until('the organization hears push notifications work', realmPush);
    t.pass('clients are told push notifications now work');
    const devices = await bouncer.waitFor('push/register', 2);
    const byKind = Object.fromEntries(devices.map((d) => [d.params.token_kind, d.params]));
    t.match(byKind['1'], { token: apnsToken, ios_app_id: 'org.zulip.Zulip', user_id: String(pia.userId) }, 'the iPhone forwarded, with its app id');
    t.match(byKind['2'], { token: fcmToken, user_id: String(pia.userId) }, 'the Android phone forwarded');
    t.match(byKind['1'].user_uuid, /^[0-9a-f-]{36}$/, 'the person known to the service by UUID');
    t.equal(byKind['1'].realm_uuid, realms[0].uuid, 'in their organization');
    t.equal(bouncer.devices.length, 2, 'the service has both');
  });

  await t.test('a notification, as the apps read it', async (t) => {
    const before = notifies().length;
    const id = await w.dm(ts.owner, [pia], 'Are you **there**? :smile:');
    const [req] = (await bouncer.waitFor('push/notify', before + 1)).slice(before);
    const json = req.json;
    t.match(json, { user_id: pia.userId, apple_devices: [apnsToken], android_devices: [fcmToken] }, 'to both of Pia\'s devices');
    t.match(json.apns_payload, { alert: { title: 'Stoa Owner', subtitle: '', body: 'Are you there? 🙂' }, sound: 'default', badge: 0 }, 'the iPhone\'s alert');
    t.match(json.apns_payload.custom.zulip, { sender_id: ts.owner.userId, recipient_type: 'private', message_ids: [id], realm_name: 'Stoa', user_id: pia.userId }, 'and the data the app opens it with');
    t.notOk('server' in json.apns_payload.custom.zulip, 'without the fields iOS does without');
    t.match(json.gcm_payload, { event: 'message', zulip_message_id: id, content: 'Are you there? 🙂', sender_full_name: 'Stoa Owner', recipient_type: 'private', server: ts.server.config.externalHost }, 'the Android payload');
    t.match(json.gcm_payload.sender_avatar_url, /^https:\/\/secure\.gravatar\.com\/avatar\//, 'with the sender\'s avatar');
    t.same(json.gcm_options, { priority: 'high' }, 'sent with high priority');

    await w.channel('pushed', [pia]);
    const before2 = notifies().length;
    await w.post(ts.owner, 'pushed', 'status', '@**Pia Phone** the build is green');
    const [mention] = (await bouncer.waitFor('push/notify', before2 + 1)).slice(before2);
    t.match(mention.json.apns_payload.alert, { title: '#pushed > status', subtitle: 'Stoa Owner mentioned you:' }, 'a mention, as iOS shows it');
    t.match(mention.json.gcm_payload, { recipient_type: 'stream', stream: 'pushed', topic: 'status' }, 'and the channel and topic');
  });

  await t.test('retried while the service fails', async (t) => {
    const before = notifies().length;
    const failedBefore = bouncer.requests.filter((r) => r.status === 503).length;
    bouncer.failNext(2, 503);
    const id = await w.dm(ts.owner, [pia], 'this one takes three tries');
    const [req] = (await bouncer.waitFor('push/notify', before + 1)).slice(before);
    t.equal(req.json.gcm_payload.zulip_message_id, id, 'delivered in the end');
    const failures = bouncer.requests.filter((r) => r.status === 503).slice(failedBefore);
    t.equal(failures.length, 2, 'after the two 503 answers');
    t.ok(failures.every((f) => f.json.gcm_payload.zulip_message_id === id), 'each a try of the same notification');
    await sleep(500);
    t.equal(notifies().filter((r) => r.json.gcm_payload.zulip_message_id === id).length, 1, 'and sent once it was taken');
  });

  await t.test('removed after a read', async (t) => {
    const before = notifies().length;
    const id = await w.dm(ts.owner, [pia], 'read this one on the laptop');
    await bouncer.waitFor('push/notify', before + 1);
    t.equal((await asPia('POST', '/messages/flags', { params: { messages: JSON.stringify([id]), op: 'add', flag: 'read' } })).status, 200, 'read elsewhere');
    const [removal] = (await bouncer.waitFor('push/notify', before + 2)).slice(before + 1);
    t.match(removal.json.gcm_payload, { event: 'remove', zulip_message_ids: String(id) }, 'the phones are told to drop it');
    t.match(removal.json.apns_payload.custom.zulip, { event: 'remove', zulip_message_ids: String(id) }, 'both kinds');
    t.same(removal.json.gcm_options, { priority: 'normal' }, 'with normal priority');
    t.equal((await asPia('POST', '/mark_all_as_read')).status, 200, 'everything read');
    await bouncer.waitFor('push/notify', before + 3);
    const all = notifies()[before + 2].json.gcm_payload;
    t.equal(all.event, 'remove', 'marking all read removes what was still shown');
  });

  await t.test('removed after an edit takes the mention away, and after a deletion', async (t) => {
    let before = notifies().length;
    const id = await w.post(ts.owner, 'pushed', 'edits', '@**Pia Phone** look at this');
    await bouncer.waitFor('push/notify', before + 1);
    t.equal((await ts.request('PATCH', `/messages/${id}`, { params: { content: 'never mind' } })).status, 200, 'the mention edited away');
    const [edited] = (await bouncer.waitFor('push/notify', before + 2)).slice(before + 1);
    t.match(edited.json.gcm_payload, { event: 'remove', zulip_message_ids: String(id) }, 'the notification goes');
    before = notifies().length;
    const gone = await w.dm(ts.owner, [pia], 'sent by mistake');
    await bouncer.waitFor('push/notify', before + 1);
    t.equal((await ts.request('DELETE', `/messages/${gone}`)).status, 200, 'deleted');
    const [deleted] = (await bouncer.waitFor('push/notify', before + 2)).slice(before + 1);
    t.match(deleted.json.gcm_payload, { event: 'remove', zulip_message_ids: String(gone) }, 'its notification goes too');
  });

  await t.test('removed after an edit made while the notification was on its way', async (t) => {
    // The edit finds no mark to clear (the service has not answered yet): the job must see
    // the mention gone once it has, and remove what it sent.
    const before = notifies().length;
    let release = () => {};
    bouncer.holdAnswers = new Promise<void>((resolve) => (release = resolve));
    try {
      const id = await w.post(ts.owner, 'pushed', 'edits', '@**Pia Phone** one more thing');
      // By message, not by count: a removal owed from an earlier test may still be arriving.
      await notifyWhere(before, (p) => p.event === 'message' && p.zulip_message_id === id);
      t.equal((await ts.request('PATCH', `/messages/${id}`, { params: { content: 'forget it' } })).status, 200, 'the mention edited away while the service holds its answer');
      bouncer.holdAnswers = null;
      release();
      const removal = await notifyWhere(before, (p) => p.event === 'remove' && String(p.zulip_message_ids).split(',').includes(String(id)));
      t.match(removal.json.gcm_payload, { event: 'remove', zulip_message_ids: String(id) }, 'the notification goes once the service has answered');
    } finally {
      bouncer.holdAnswers = null;
      release();
    }
  });

  await t.test('a test notification', async (t) => {
    t.equal((await asPia('POST', '/mobile_push/test_notification', { params: { token: apnsToken } })).status, 200, 'Pia tests her iPhone');
    const [test] = bouncer.to('push/test_notification');
    t.match(test.json, { token: apnsToken, token_kind: 1, user_id: pia.userId, base_payload: { realm_name: 'Stoa', user_id: pia.userId } }, 'sent through the service');
    bouncer.devices = bouncer.devices.filter((d) => d.token !== fcmToken);
    const unknown = await asPia('POST', '/mobile_push/test_notification', { params: { token: fcmToken } });
    t.same([unknown.status, unknown.body.code], [400, 'INVALID_REMOTE_PUSH_DEVICE_TOKEN'], 'a device the service lost is reported as it reports it');
    bouncer.devices.push({ server: test.server!, userId: null, userUuid: test.json.user_uuid, kind: 2, token: fcmToken, iosAppId: null });
  });

  await t.test('a device removed; a refusal', async (t) => {
    t.equal((await asPia('DELETE', '/users/me/android_gcm_reg_id', { params: { token: fcmToken } })).status, 200, 'the Android phone goes');
    const [unregister] = await bouncer.waitFor('push/unregister');
    t.match(unregister.params, { token: fcmToken, token_kind: '2' }, 'and the service forgets it');
    bouncer.canPush = false;
    await w.dm(ts.owner, [pia], 'the service will not push this');
    await until('the organization hears push notifications stopped', async () => !(await realmPush()));
    t.pass('realm_push_notifications_enabled follows the service\'s refusal');
    t.ok(bouncer.requests.some((r) => r.endpoint === 'push/notify' && r.answer.code === 'PUSH_NOTIFICATIONS_DISALLOWED'), 'which it gave');
  });
});
