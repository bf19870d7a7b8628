import t from 'tap';
import { streamId, subscribe } from '../streams/world.js';
import { ok, startInviteWorld } from './harness.js';

/**
 * POST /invites/multiuse: every parameter of the spec's table and every rule the reference
 * applies (zerver/views/invite.py, zerver/tests/test_invite.py), through HTTP.
 */
t.test('POST /invites/multiuse', async (t) => {
  const w = await startInviteWorld(t);
  const { owner, admin, hamlet, polonius, bot } = w.root;
  const asOwner = w.as(owner);
  const asAdmin = w.as(admin);
  const asHamlet = w.as(hamlet);
  const asShiva = w.as(w.shiva);
  const groups = ok(await asOwner('POST', '/register', { params: { fetch_event_types: ['realm_user_groups'] } })).realm_user_groups as { id: number; name: string }[];
  const sys = (name: string) => groups.find((g) => g.name === name)!.id;
  const setRealm = async (name: string, group: number) => ok(await asOwner('PATCH', '/realm', { params: { [name]: { new: group } } }));
  const listed = async () => ok(await asOwner('GET', '/invites')).invites as Record<string, unknown>[];
  const byLink = async (link: string) => (await listed()).find((i) => i.link_url === link)!;

  t.test('defaults: a member invitation valid for 14,400 minutes', async (t) => {
    const body = ok(await asAdmin('POST', '/invites/multiuse'));
    t.match(body.invite_link, new RegExp(`^http://${w.ts.server.config.externalHost}/join/[a-z2-7]{24}/$`), 'the link is <realm url>/join/<key>/');
    const invite = await byLink(body.invite_link);
    t.match(invite, { invited_as: 400, is_multiuse: true, invited_by_user_id: admin.userId }, 'a member invitation by the admin');
    t.equal((invite.expiry_date as number) - (invite.invited as number), 14400 * 60, 'expires ten days after it was made');
  });

  t.test('invite_expires_in_minutes: a number, or null for never', async (t) => {
    const short = ok(await asAdmin('POST', '/invites/multiuse', { params: { invite_expires_in_minutes: 90 } }));
    const invite = await byLink(short.invite_link);
    t.equal((invite.expiry_date as number) - (invite.invited as number), 90 * 60, '90 minutes');
    const never = ok(await asAdmin('POST', '/invites/multiuse', { params: { invite_expires_in_minutes: null } }));
    t.equal((await byLink(never.invite_link)).expiry_date, null, 'null: never expires');
    const json = ok(await asAdmin('POST', '/invites/multiuse', { params: { invite_expires_in_minutes: null }, encoding: 'json' }));
    t.equal((await byLink(json.invite_link)).expiry_date, null, 'a JSON null in a JSON body too');
    const bad = await asAdmin('POST', '/invites/multiuse', { params: { invite_expires_in_minutes: 'soon' } });
    t.match(bad, { status: 400, body: { code: 'INVALID_JSON', msg: 'Argument "invite_expires_in_minutes" is not valid JSON.' } }, 'not JSON');
    const fraction = await asAdmin('POST', '/invites/multiuse', { params: { invite_expires_in_minutes: 1.5 } });
    t.match(fraction, { status: 400, body: { code: 'REQUEST_VARIABLE_INVALID', var_name: 'invite_expires_in_minutes' } }, 'not an integer');
  });

  t.test('who may create links: create_multiuse_invite_group, administrators by default', async (t) => {
    ok(await asOwner('POST', '/invites/multiuse'));
    ok(await asAdmin('POST', '/invites/multiuse'));
    t.match(await asShiva('POST', '/invites/multiuse'), { status: 400, body: { code: 'BAD_REQUEST', msg: 'Insufficient permission' } }, 'a moderator may not');
    t.match(await asHamlet('POST', '/invites/multiuse'), { status: 400, body: { msg: 'Insufficient permission' } }, 'a member may not');
    t.match(await w.as(polonius)('POST', '/invites/multiuse'), { status: 400, body: { msg: 'Not allowed for guest users' } }, 'a guest never');
    t.match(await w.as(bot)('POST', '/invites/multiuse'), { status: 400, body: { msg: 'This endpoint does not accept bot requests.' } }, 'a bot never');
    await setRealm('create_multiuse_invite_group', sys('role:members'));
    ok(await asHamlet('POST', '/invites/multiuse'));
    ok(await asShiva('POST', '/invites/multiuse'));
    t.match(await w.as(polonius)('POST', '/invites/multiuse'), { status: 400, body: { msg: 'Not allowed for guest users' } }, 'guests still not');
    await setRealm('create_multiuse_invite_group', sys('role:nobody'));
    t.match(await asOwner('POST', '/invites/multiuse'), { status: 400, body: { msg: 'Insufficient permission' } }, 'nobody: not even the owner');
    await setRealm('create_multiuse_invite_group', sys('role:members'));
  });

  t.test('invite_as: no less restricted than the inviter', async (t) => {
    t.match(await asAdmin('POST', '/invites/multiuse', { params: { invite_as: 100 } }), { status: 400, body: { code: 'UNAUTHORIZED_PRINCIPAL', msg: 'Must be an organization owner' } }, 'only owners invite owners');
    const asOwnerLink = ok(await asOwner('POST', '/invites/multiuse', { params: { invite_as: 100 } }));
    t.equal((await byLink(asOwnerLink.invite_link)).invited_as, 100, 'an owner may');
    ok(await asAdmin('POST', '/invites/multiuse', { params: { invite_as: 200 } }));
    ok(await asAdmin('POST', '/invites/multiuse', { params: { invite_as: 300 } }));
    for (const role of [200, 300]) {
      t.match(await asShiva('POST', '/invites/multiuse', { params: { invite_as: role } }), { status: 400, body: { code: 'BAD_REQUEST', msg: 'Must be an organization administrator' } }, `a moderator may not invite as ${role}`);
      t.match(await asHamlet('POST', '/invites/multiuse', { params: { invite_as: role } }), { status: 400, body: { msg: 'Must be an organization administrator' } }, `a member may not invite as ${role}`);
    }
    t.match(await asHamlet('POST', '/invites/multiuse', { params: { invite_as: 100 } }), { status: 400, body: { msg: 'Must be an organization owner' } }, 'a member may not invite owners');
    for (const role of [400, 600]) {
      const body = ok(await asHamlet('POST', '/invites/multiuse', { params: { invite_as: role } }));
      t.equal((await byLink(body.invite_link)).invited_as, role, `a member may invite as ${role}`);
    }
    t.match(
      await asOwner('POST', '/invites/multiuse', { params: { invite_as: 601 } }),
      { status: 400, body: { code: 'REQUEST_VARIABLE_INVALID', msg: 'Invalid invite_as: Value error, Not in the list of possible values' } },
      'an unknown role',
    );
  });

  t.test('stream_ids: channels the inviter may add others to, or default channels', async (t) => {
    const general = await streamId(asOwner, 'general');
    await subscribe(asOwner, ['design']);
    await subscribe(asOwner, ['secret'], { invite_only: true });
    const design = await streamId(asOwner, 'design');
    const secret = await streamId(asOwner, 'secret');
    ok(await asHamlet('POST', '/invites/multiuse', { params: { stream_ids: [general, design] } }));
    t.match(await asHamlet('POST', '/invites/multiuse', { params: { stream_ids: [secret] } }), { status: 400, body: { msg: `Invalid channel ID ${secret}. No invites were sent.` } }, 'a private channel the inviter cannot see');
    ok(await asOwner('POST', '/invites/multiuse', { params: { stream_ids: [secret] } }));
    t.match(await asHamlet('POST', '/invites/multiuse', { params: { stream_ids: [999999] } }), { status: 400, body: { msg: 'Invalid channel ID 999999. No invites were sent.' } }, 'no such channel');
    t.match(await asHamlet('POST', '/invites/multiuse', { params: { stream_ids: 'general' } }), { status: 400, body: { code: 'INVALID_JSON' } }, 'not a list');
    await setRealm('can_add_subscribers_group', sys('role:administrators'));
    t.match(
      await asHamlet('POST', '/invites/multiuse', { params: { stream_ids: [design] } }),
      { status: 400, body: { msg: 'You do not have permission to subscribe other users to channels.' } },
      'without can_add_subscribers_group',
    );
    ok(await asHamlet('POST', '/invites/multiuse', { params: { stream_ids: [general] } }));
    t.pass('a default channel needs no such permission');
    ok(await asHamlet('POST', '/invites/multiuse', { params: { stream_ids: [], include_realm_default_subscriptions: true } }));
    t.pass('include_realm_default_subscriptions needs no such permission');
    ok(await asAdmin('POST', '/invites/multiuse', { params: { stream_ids: [design] } }));
    await setRealm('can_add_subscribers_group', sys('role:members'));
    ok(await asOwner('DELETE', `/streams/${design}`));
    t.match(await asOwner('POST', '/invites/multiuse', { params: { stream_ids: [design] } }), { status: 400, body: { msg: `Invalid channel ID ${design}. No invites were sent.` } }, 'an archived channel');
  });

  t.test('group_ids: groups the inviter may add members to', async (t) => {
    ok(await asHamlet('POST', '/invites/multiuse', { params: { group_ids: [w.teamGroupId] } }));
    t.match(await asHamlet('POST', '/invites/multiuse', { params: { group_ids: [w.closedGroupId] } }), { status: 400, body: { msg: 'Insufficient permission' } }, 'a group nobody may add to');
    t.match(await asAdmin('POST', '/invites/multiuse', { params: { group_ids: [w.closedGroupId] } }), { status: 400, body: { msg: 'Insufficient permission' } }, 'not an administrator either');
    ok(await asOwner('POST', '/invites/multiuse', { params: { group_ids: [w.closedGroupId] } }));
    t.pass('an owner may (can_manage_all_groups)');
    t.match(await asOwner('POST', '/invites/multiuse', { params: { group_ids: [sys('role:moderators')] } }), { status: 400, body: { msg: 'Insufficient permission' } }, 'never a system group');
    t.match(await asOwner('POST', '/invites/multiuse', { params: { group_ids: [5438] } }), { status: 400, body: { msg: 'Invalid user group' } }, 'no such group');
    t.match(await asHamlet('POST', '/invites/multiuse', { params: { group_ids: [w.oldGroupId] } }), { status: 400, body: { msg: 'User group is deactivated.' } }, 'a deactivated group');
  });

  t.test('welcome_message_custom_text: administrators only, at most 8,000 characters', async (t) => {
    ok(await asAdmin('POST', '/invites/multiuse', { params: { welcome_message_custom_text: 'Welcome aboard!' } }));
    ok(await asAdmin('POST', '/invites/multiuse', { params: { welcome_message_custom_text: '' } }));
    ok(await asAdmin('POST', '/invites/multiuse', { params: { welcome_message_custom_text: 'x'.repeat(8000) } }));
    t.match(
      await asAdmin('POST', '/invites/multiuse', { params: { welcome_message_custom_text: 'x'.repeat(8001) } }),
      { status: 400, body: { code: 'REQUEST_VARIABLE_INVALID', msg: 'welcome_message_custom_text is too long (limit: 8000 characters)' } },
      'too long',
    );
    t.match(await asHamlet('POST', '/invites/multiuse', { params: { welcome_message_custom_text: 'Hi' } }), { status: 400, body: { msg: 'Must be an organization administrator' } }, 'a member may not');
    t.match(await asHamlet('POST', '/invites/multiuse', { params: { welcome_message_custom_text: '' } }), { status: 400, body: { msg: 'Must be an organization administrator' } }, 'not even to turn it off');
    ok(await asHamlet('POST', '/invites/multiuse'));
  });

  t.test('unknown parameters are reported, and nothing is made on an error', async (t) => {
    const body = ok(await asAdmin('POST', '/invites/multiuse', { params: { notify_referrer_on_join: false, color: 'red' } }));
    t.same(body.ignored_parameters_unsupported, ['notify_referrer_on_join', 'color'], 'email-only and unknown parameters');
    const before = (await listed()).length;
    await asHamlet('POST', '/invites/multiuse', { params: { invite_as: 200 } });
    await asHamlet('POST', '/invites/multiuse', { params: { group_ids: [w.closedGroupId] } });
    t.equal((await listed()).length, before, 'refused requests made no invitation');
  });

  t.test('links belong to their realm', async (t) => {
    const body = ok(await w.asOther(w.other.owner)('POST', '/invites/multiuse'));
    t.match(body.invite_link, new RegExp(`^http://${w.otherHost}/join/`), "the other realm's URL");
    t.notOk((await listed()).some((i) => i.link_url === body.invite_link), 'not listed in this realm');
  });
});
