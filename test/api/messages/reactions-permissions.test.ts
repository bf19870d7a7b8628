import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { loadConfig, resolveConfig } from '../../../src/lib/config.js';
import { createRealm, inProcess } from '../../../src/realms.js';
import { Directory } from '../../../src/store/directory.js';
import { createUser, startTestServer } from '../../helpers/server.js';

t.test('reactions: who may react', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'stoa-test-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const config = resolveConfig(loadConfig({}, { dataDir, shards: 2, logLevel: 'silent' }), 0);
  const directory = new Directory(dataDir);
  await createRealm(config, directory, inProcess(config), { subdomain: '', name: 'Root', ownerEmail: 'root@example.com', ownerFullName: 'Root' });
  const other = await createRealm(config, directory, inProcess(config), { subdomain: 'other', name: 'Other', ownerEmail: 'other@example.com', ownerFullName: 'Other' });
  await directory.close();
  const ts = await startTestServer(t, {}, { dataDir });
  const ann = await createUser(ts, 'ann@example.com', 'Ann');
  const bob = await createUser(ts, 'bob@example.com', 'Bob');
  const carl = await createUser(ts, 'carl@example.com', 'Carl');
  const asAnn = ts.as(ann);
  const invalid = { result: 'error', msg: 'Invalid message(s)', code: 'BAD_REQUEST' };
  const react = (who: typeof ann, id: number) => ts.as(who)('POST', `/messages/${id}/reactions`, { params: { emoji_name: 'tada' } });
  const reactionsOf = async (id: number) => (await asAnn('GET', `/messages/${id}`)).body.message.reactions;

  t.test('reactions: a direct message, only by its participants', async (t) => {
    const dm = await asAnn('POST', '/messages', { params: { type: 'direct', to: [bob.userId], content: 'just us' } });
    t.equal((await react(bob, dm.body.id)).status, 200, 'the recipient may react');
    t.same((await react(carl, dm.body.id)).body, invalid, 'someone else: Invalid message(s)');
    const removal = await ts.as(carl)('DELETE', `/messages/${dm.body.id}/reactions`, { params: { emoji_name: 'tada' } });
    t.same(removal.body, invalid, 'nor remove one: Invalid message(s), which says nothing of the reaction');
    t.equal((await reactionsOf(dm.body.id)).length, 1, 'only Bob\'s reaction is there');
  });

  t.test('reactions: a private channel, only by those who can read it', async (t) => {
    const created = await asAnn('POST', '/users/me/subscriptions', { params: { subscriptions: [{ name: 'secret' }], invite_only: true, principals: [ann.userId, bob.userId] } });
    t.equal(created.status, 200, 'Ann creates a private channel with Bob');
    const msg = await asAnn('POST', '/messages', { params: { type: 'stream', to: 'secret', topic: 't', content: 'hush' } });
    t.equal((await react(bob, msg.body.id)).status, 200, 'a subscriber may react');
    t.same((await react(carl, msg.body.id)).body, invalid, 'a member who is not subscribed: Invalid message(s)');
    t.same((await react(ts.owner as typeof ann, msg.body.id)).body, invalid, 'nor may an unsubscribed owner');
  });

  t.test('reactions: a public channel, by any member', async (t) => {
    const msg = await asAnn('POST', '/messages', { params: { type: 'stream', to: 'general', topic: 't', content: 'open' } });
    t.equal((await react(carl, msg.body.id)).status, 200, 'a member may react');
  });

  t.test('reactions: never across realms', async (t) => {
    const msg = await asAnn('POST', '/messages', { params: { type: 'stream', to: 'general', topic: 't', content: 'ours' } });
    const host = `other.${ts.server.config.externalHost}`;
    const res = await ts.request('POST', `/messages/${msg.body.id}/reactions`, { params: { emoji_name: 'tada' }, auth: { email: other.owner.email, apiKey: other.owner.apiKey }, host });
    t.same(res.body, invalid, 'a message of another realm: Invalid message(s)');
    t.same(await reactionsOf(msg.body.id), [], 'and no reaction');
  });

  t.test('reactions: need credentials', async (t) => {
    const res = await ts.request('POST', '/messages/1/reactions', { params: { emoji_name: 'tada' }, auth: null });
    t.equal(res.status, 401, 'status 401');
  });
});
