import t from 'tap';
import { realmSetting } from '../../../src/model/realm-settings.js';
import { createUser, startTestServer } from '../../helpers/server.js';
import { ROLE, startShard } from './harness.js';

const ADMIN_REQUIRED = { msg: 'Must be an organization administrator', code: 'UNAUTHORIZED_PRINCIPAL' };
const OWNER_REQUIRED = { msg: 'Must be an organization owner', code: 'UNAUTHORIZED_PRINCIPAL' };

t.test('PATCH /realm: who may change what', async (t) => {
  t.test('a member gets the reference error over HTTP', async (t) => {
    const ts = await startTestServer(t);
    const member = await createUser(ts, 'member@example.com');
    const res = await ts.request('PATCH', '/realm', { auth: member, params: { mandatory_topics: true } });
    t.equal(res.status, 400, 'status 400');
    t.match(res.body, { result: 'error', ...ADMIN_REQUIRED }, 'must be an administrator');
    const owner = await ts.request('PATCH', '/realm', { params: { mandatory_topics: false } });
    t.notOk('mandatory_topics' in owner.body, 'the setting was not changed by the member');
  });

  const h = await startShard(t);

  t.test('members, guests and moderators are not administrators', async (t) => {
    for (const role of [ROLE.member, ROLE.guest, ROLE.moderator]) {
      const user = await h.user(role);
      const res = await h.call('realm.update', user, { mandatory_topics: 'true' });
      t.equal(res.status, 400, `role ${role}: status 400`);
      t.match(res.body, ADMIN_REQUIRED, `role ${role}: must be an administrator`);
    }
    t.equal(realmSetting(h.realm, 'mandatory_topics'), false, 'nothing changed');
  });

  t.test('an administrator changes ordinary settings', async (t) => {
    const admin = await h.user(ROLE.administrator);
    const res = await h.call('realm.update', admin, { mandatory_topics: 'true', message_content_edit_limit_seconds: '1200', name: 'Admin named' });
    t.equal(res.status, 200, 'status 200');
    t.equal(realmSetting(h.realm, 'mandatory_topics'), true, 'mandatory_topics changed');
    t.equal(realmSetting(h.realm, 'message_content_edit_limit_seconds'), 1200, 'edit limit changed');
    t.equal(h.realm.realm.name, 'Admin named', 'name changed');
  });

  t.test('owner-only settings refuse an administrator', async (t) => {
    const admin = await h.user(ROLE.administrator);
    const members = h.realm.systemGroupId('role:members');
    const ownerOnly: Record<string, unknown> = {
      invite_required: 'false',
      emails_restricted_to_domains: 'true',
      disallow_disposable_email_addresses: 'false',
      waiting_period_threshold: '5',
      message_retention_days: '10',
      authentication_methods: '{"Email": true}',
      create_multiuse_invite_group: JSON.stringify({ new: members }),
      can_create_groups: JSON.stringify({ new: members }),
      can_invite_users_group: JSON.stringify({ new: members }),
      can_manage_all_groups: JSON.stringify({ new: h.realm.systemGroupId('role:administrators') }),
      can_manage_billing_group: JSON.stringify({ new: h.realm.systemGroupId('role:owners') }),
      string_id: 'other',
    };
    for (const [name, value] of Object.entries(ownerOnly)) {
      const res = await h.call('realm.update', admin, { [name]: value, mandatory_topics: 'false' });
      t.match(res.body, OWNER_REQUIRED, `${name}: must be an owner`);
    }
    t.equal(realmSetting(h.realm, 'mandatory_topics'), true, 'the ordinary setting sent alongside was not applied');
    t.equal(realmSetting(h.realm, 'waiting_period_threshold'), 0, 'waiting period unchanged');
    t.equal(realmSetting(h.realm, 'invite_required'), true, 'invite_required unchanged');
  });

  t.test('an owner changes owner-only settings', async (t) => {
    const res = await h.call('realm.update', h.owner, { invite_required: 'false', waiting_period_threshold: '5', message_retention_days: '10' });
    t.equal(res.status, 200, 'status 200');
    t.same(res.body, { result: 'success', msg: '', invite_required: false, waiting_period_threshold: 5, message_retention_days: 10 }, 'all three changed');
  });

  t.test('an administrator bot is an administrator', async (t) => {
    const bot = await h.user(ROLE.administrator, { isBot: true });
    const res = await h.call('realm.update', bot, { enable_read_receipts: 'false' });
    t.equal(res.status, 200, 'status 200');
    t.equal(realmSetting(h.realm, 'enable_read_receipts'), false, 'changed by the bot');
  });
});
