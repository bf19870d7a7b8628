import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { loadConfig, resolveConfig } from '../../src/lib/config.js';
import { createRealm, inProcess } from '../../src/realms.js';
import { Directory } from '../../src/store/directory.js';
import { startTestServer } from '../helpers/server.js';

/** Prepares a data directory holding the root realm and realm `other`, as the CLI would. */
async function twoRealms(dataDir: string) {
  const config = resolveConfig(loadConfig({}, { dataDir, shards: 2, logLevel: 'silent' }), 0);
  const directory = new Directory(dataDir);
  const made = [];
  for (const [subdomain, email] of [['', 'root-owner@example.com'], ['other', 'other-owner@example.com']]) {
    made.push(
      await createRealm(config, directory, inProcess(config), { subdomain, name: subdomain || 'Root', ownerEmail: email, ownerFullName: 'Owner' }),
    );
  }
  await directory.close();
  return made;
}

t.test('realms: resolved by Host, and sealed from each other', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'stoa-test-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const [root, other] = await twoRealms(dataDir);
  const ts = await startTestServer(t, {}, { dataDir });
  const host = ts.server.config.externalHost;
  const otherHost = `other.${host}`;
  const rootCreds = { email: root.owner.email, apiKey: root.owner.apiKey };
  const otherCreds = { email: other.owner.email, apiKey: other.owner.apiKey };

  t.test('each realm answers at its own host', async (t) => {
    const a = await ts.request('GET', '/server_settings', { auth: null, host });
    const b = await ts.request('GET', '/server_settings', { auth: null, host: otherHost });
    t.equal(a.body.realm_name, 'Root', 'the external host is the root realm');
    t.equal(b.body.realm_name, 'other', 'other.<host> is realm other');
    t.equal(b.body.realm_url, `http://${otherHost}`, 'realm_url is the subdomain URL');
  });

  t.test('an unknown subdomain is an error, not another realm', async (t) => {
    const res = await ts.request('GET', '/server_settings', { auth: null, host: `nope.${host}` });
    t.equal(res.status, 404, 'status 404');
    t.equal(res.body.result, 'error', 'error envelope');
  });

  t.test("a user cannot authenticate to another realm", async (t) => {
    const res = await ts.request('GET', '/users/me', { auth: rootCreds, host: otherHost });
    t.equal(res.status, 401, 'status 401');
    t.equal(res.body.code, 'UNAUTHORIZED', 'the key is unknown there, as an invalid API key is');
    const own = await ts.request('GET', '/users/me', { auth: otherCreds, host: otherHost });
    t.equal(own.status, 200, 'the realm own owner authenticates');
  });

  t.test("a user cannot read another realm's users or channels", async (t) => {
    const users = await ts.request('GET', '/users', { auth: otherCreds, host: otherHost });
    const emails = users.body.members.map((m: { email: string }) => m.email);
    t.notOk(emails.includes(root.owner.email), "the root realm's owner is not listed in realm other");
    const made = await ts.request('POST', '/users/me/subscriptions', { auth: rootCreds, host, params: { subscriptions: [{ name: 'root only' }] } });
    t.equal(made.status, 200, 'the root owner creates a channel');
    const otherStreams = await ts.request('GET', '/streams', { auth: otherCreds, host: otherHost });
    const names = otherStreams.body.streams.map((s: { name: string }) => s.name);
    t.notOk(names.includes('root only'), "the root realm's channel is not listed in realm other");
    const lookup = await ts.request('GET', '/get_stream_id', { auth: otherCreds, host: otherHost, params: { stream: 'root only' } });
    t.equal(lookup.status, 400, 'nor found by name there');
    const probe = await ts.request('GET', '/users/me', { auth: rootCreds, host: otherHost });
    t.equal(probe.status, 401, 'and root credentials stay useless there');
  });
});
