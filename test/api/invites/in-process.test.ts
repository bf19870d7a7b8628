import t from 'tap';
import { lookupLink } from '../../../src/api/invites/join.js';
import { WELCOME_BOT_EMAIL } from '../../../src/api/invites/onboarding.js';
import { dispatch } from '../../../src/host/dispatch.js';
import { inProcessShard } from '../../helpers/shard.js';

/**
 * What HTTP cannot reach: a deactivated organization's links, and a realm made before Welcome
 * Bot existed, which gets it when someone first joins.
 */
t.test('invitation links in the shard', async (t) => {
  const s = await inProcessShard(t);
  const link = (await s.call(s.owner, 'invites.createMultiuse')).body.invite_link as string;
  const key = /\/join\/([a-z2-7]+)\//.exec(link)![1];
  const joinPage = async (params: Record<string, string> = {}, op = 'invites.joinPage') => {
    const reply = await dispatch(s.shard, { kind: 'request', op, realmId: 1, params, pathParams: { key }, userAgent: 'test', remoteAddr: '127.0.0.1' });
    return { status: reply.status, html: reply.body, type: reply.headers?.['content-type'] };
  };

  t.test('a realm made before Welcome Bot gets it on the first arrival', async (t) => {
    const bot = s.realm.userByEmail(WELCOME_BOT_EMAIL)!;
    t.ok(bot?.isSystemBot, 'a new realm has its Welcome Bot');
    s.realm.users.delete(bot.id);
    s.realm.usersByEmail.delete(WELCOME_BOT_EMAIL);
    const res = await joinPage({ email: 'ada@example.net', full_name: 'Ada', password: 'ada-password' }, 'invites.join');
    t.equal(res.status, 200, 'the account is made');
    const again = s.realm.userByEmail(WELCOME_BOT_EMAIL)!;
    t.ok(again?.isSystemBot, 'Welcome Bot exists again, a system bot');
    t.not(again.id, bot.id, 'made anew');
  });

  t.test('a deactivated organization takes no one', async (t) => {
    t.equal(lookupLink(s.shard, s.realm, key).problem, undefined, 'the link works');
    s.realm.realm.deactivated = true;
    t.equal(lookupLink(s.shard, s.realm, key).problem, 'deactivated', 'until the organization is deactivated');
    const page = await joinPage();
    t.equal(page.status, 404, '404');
    t.match(page.type, /^text\/html/, 'an HTML page');
    t.match(page.html, /This organization has been deactivated/, 'that says why');
    const post = await joinPage({ email: 'bea@example.net', full_name: 'Bea', password: 'bea-password' }, 'invites.join');
    t.match(post.html, /data-problem="deactivated"/, 'and submitting makes nothing');
    t.notOk(s.realm.userByEmail('bea@example.net'), 'no account');
    s.realm.realm.deactivated = false;
  });
});
