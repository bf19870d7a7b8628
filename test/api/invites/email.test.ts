import t from 'tap';
import { streamId } from '../streams/world.js';
import { Inbox, ok, startInviteWorld } from './harness.js';

/**
 * POST /invites and POST /invites/{id}/resend, with the mail going through a real SMTP listener
 * on localhost; errors and permissions as the reference has them.
 */
t.test('email invitations', async (t) => {
  const w = await startInviteWorld(t, { smtp: true });
  const inbox = w.inbox!;
  const { owner, admin, hamlet, othello, polonius, bot } = w.root;
  const asOwner = w.as(owner);
  const asAdmin = w.as(admin);
  const asHamlet = w.as(hamlet);
  const general = await streamId(asOwner, 'general');
  const invite = (who: typeof owner, params: Record<string, unknown>) => w.as(who)('POST', '/invites', { params: { stream_ids: [general], ...params } });
  const listed = async (who = owner) => ok(await w.as(who)('GET', '/invites')).invites as Record<string, any>[];
  const idOf = async (email: string) => (await listed()).find((i) => i.email === email)!.id as number;

  t.test('each address gets a mail with its own link, through the SMTP server', async (t) => {
    ok(await invite(hamlet, { invitee_emails: 'alice@example.net, Bob Example <bob@example.net>\ncarol@example.net' }));
    for (const email of ['alice@example.net', 'bob@example.net', 'carol@example.net']) {
      const mails = inbox.to(email);
      t.equal(mails.length, 1, `one mail to ${email}`);
      t.equal(mails[0].from, 'noreply@stoa.test', 'from the configured address');
      t.match(mails[0].text, /hamlet \(hamlet@example\.com\) wants you to join them in Root/, 'says who invites, and where');
      t.match(mails[0].text, /Subject: hamlet invited you to join Root/, 'a subject');
    }
    const links = ['alice', 'bob', 'carol'].map((n) => Inbox.link(inbox.to(`${n}@example.net`)[0]));
    t.equal(new Set(links).size, 3, 'three different links');
    const mine = await listed(hamlet);
    t.same(mine.map((i) => i.email).sort(), ['alice@example.net', 'bob@example.net', 'carol@example.net'], 'listed for their inviter');
    t.match(mine[0], { is_multiuse: false, invited_as: 400, invited_by_user_id: hamlet.userId, notify_referrer_on_join: true }, 'the reference Invite shape');
  });

  t.test('names are escaped in the HTML part', async (t) => {
    // Names may not hold '>', but '<' and '&' are allowed.
    ok(await asOwner('PATCH', '/settings', { params: { full_name: 'Ann & <img src=x https://www.example.org/' } }));
    ok(await invite(owner, { invitee_emails: 'escape@example.net' }));
    const mail = inbox.to('escape@example.net')[0];
    const html = mail.text.slice(mail.text.indexOf('Content-Type: text/html'));
    t.match(html, /Ann &amp; &lt;img src=x https:\/\/www\.example\.org\/ \(owner@example\.com\)/, 'the name is text, not markup');
    t.notMatch(html, /<img/, 'no raw tag from the name');
    ok(await asOwner('PATCH', '/settings', { params: { full_name: 'Owner' } }));
  });

  t.test('bad input', async (t) => {
    t.match(await invite(hamlet, { invitee_emails: '' }), { status: 400, body: { msg: 'You must specify at least one email address.' } }, 'no address');
    t.match(await invite(hamlet, { invitee_emails: ' , \n' }), { status: 400, body: { msg: 'You must specify at least one email address.' } }, 'only separators');
    t.match(await asHamlet('POST', '/invites', { params: { invitee_emails: 'x@example.net' } }), { status: 400, body: { code: 'REQUEST_VARIABLE_MISSING', var_name: 'stream_ids' } }, 'stream_ids is required');
    t.match(await asHamlet('POST', '/invites', { params: { stream_ids: [] } }), { status: 400, body: { code: 'REQUEST_VARIABLE_MISSING', var_name: 'invitee_emails' } }, 'invitee_emails is required');
    const sent = inbox.mails.length;
    const bad = await invite(hamlet, { invitee_emails: 'good@example.net, noatsign.net' });
    t.match(bad, {
      status: 400,
      body: { code: 'INVITATION_FAILED', msg: "Some emails did not validate, so we didn't send any invitations.", errors: [['noatsign.net', 'Invalid address.', false]], sent_invitations: false, license_limit_reached: false, daily_limit_reached: false },
    }, 'an invalid address stops all of them');
    const disposable = await invite(hamlet, { invitee_emails: 'foo@mailinator.com' });
    t.match(disposable.body, { code: 'INVITATION_FAILED', errors: [['foo@mailinator.com', 'Please use your real email address.', false]] }, 'disposable addresses are refused (disallow_disposable_email_addresses)');
    t.equal(inbox.mails.length, sent, 'no mail went out');
    t.notOk((await listed()).some((i) => i.email === 'good@example.net'), 'no invitation was made');
  });

  t.test('addresses that already have accounts', async (t) => {
    const none = await invite(hamlet, { invitee_emails: 'OTHELLO@example.com' });
    t.match(none, { status: 400, body: { code: 'INVITATION_FAILED', msg: "We weren't able to invite anyone.", errors: [['OTHELLO@example.com', 'Already has an account.', false]], sent_invitations: false } }, 'everyone skipped');
    t.match((await invite(hamlet, { invitee_emails: 'welcome-bot@zulip.com' })).body, { errors: [['welcome-bot@zulip.com', 'Reserved for system bots.', false]] }, 'a system bot address');
    ok(await asOwner('DELETE', `/users/${othello.userId}`));
    t.match((await invite(hamlet, { invitee_emails: 'othello@example.com' })).body, { errors: [['othello@example.com', 'Account has been deactivated.', true]] }, 'a deactivated account is flagged');
    ok(await asOwner('POST', `/users/${othello.userId}/reactivate`));
    const some = await invite(hamlet, { invitee_emails: 'othello@example.com, dave@example.net' });
    t.match(some, {
      status: 400,
      body: { code: 'INVITATION_FAILED', msg: "Some of those addresses are already using Zulip, so we didn't send them an invitation. We did send invitations to everyone else!", errors: [['othello@example.com', 'Already has an account.', false]], sent_invitations: true },
    }, 'the others are invited, and the answer says so');
    t.equal(inbox.to('dave@example.net').length, 1, 'dave got his mail');
    t.ok((await listed()).some((i) => i.email === 'dave@example.net'), 'and an invitation');
  });

  t.test('permissions: can_invite_users_group, members by default', async (t) => {
    t.match(await invite(polonius, { invitee_emails: 'g@example.net' }), { status: 400, body: { msg: 'Not allowed for guest users' } }, 'guests never');
    t.match(await invite(bot, { invitee_emails: 'g@example.net' }), { status: 400, body: { msg: 'This endpoint does not accept bot requests.' } }, 'bots never');
    t.match(await invite(hamlet, { invitee_emails: 'g@example.net', invite_as: 200 }), { status: 400, body: { msg: 'Must be an organization administrator' } }, 'a member may not invite administrators');
    t.match(await invite(w.shiva, { invitee_emails: 'g@example.net', invite_as: 300 }), { status: 400, body: { msg: 'Must be an organization administrator' } }, 'nor a moderator moderators');
    t.match(await invite(admin, { invitee_emails: 'g@example.net', invite_as: 100 }), { status: 400, body: { code: 'UNAUTHORIZED_PRINCIPAL', msg: 'Must be an organization owner' } }, 'only owners invite owners');
    t.match(await invite(hamlet, { invitee_emails: 'g@example.net', welcome_message_custom_text: 'hi' }), { status: 400, body: { msg: 'Must be an organization administrator' } }, 'welcome text: administrators');
    t.match(await invite(hamlet, { invitee_emails: 'g@example.net', group_ids: [w.closedGroupId] }), { status: 400, body: { msg: 'Insufficient permission' } }, 'a closed group');
    t.match(await invite(hamlet, { invitee_emails: 'g@example.net', stream_ids: [424242] }), { status: 400, body: { msg: 'Invalid channel ID 424242. No invites were sent.' } }, 'no such channel');
    const groups = ok(await asOwner('POST', '/register', { params: { fetch_event_types: ['realm_user_groups'] } })).realm_user_groups as { id: number; name: string }[];
    const admins = groups.find((g) => g.name === 'role:administrators')!.id;
    ok(await asOwner('PATCH', '/realm', { params: { can_invite_users_group: { new: admins } } }));
    t.match(await invite(hamlet, { invitee_emails: 'g@example.net' }), { status: 400, body: { msg: 'Insufficient permission' } }, 'members, once only administrators may');
    t.match(await invite(w.shiva, { invitee_emails: 'g@example.net' }), { status: 400, body: { msg: 'Insufficient permission' } }, 'moderators too');
    ok(await invite(admin, { invitee_emails: 'g@example.net', invite_as: 300, notify_referrer_on_join: false }));
    t.match((await listed()).find((i) => i.email === 'g@example.net'), { invited_as: 300, notify_referrer_on_join: false }, 'the role and notify_referrer_on_join are kept');
    const members = groups.find((g) => g.name === 'role:members')!.id;
    ok(await asOwner('PATCH', '/realm', { params: { can_invite_users_group: { new: members } } }));
  });

  t.test('where anyone may join (invite_required off), new accounts may not invite', async (t) => {
    ok(await asOwner('PATCH', '/realm', { params: { invite_required: false } }));
    t.match(await invite(hamlet, { invitee_emails: 'n@example.net' }), {
      status: 400,
      body: { code: 'INVITATION_FAILED', msg: 'Your account is too new to send invites for this organization. Ask an organization admin, or a more experienced user.', errors: [], sent_invitations: false },
    }, 'hamlet joined today');
    ok(await invite(admin, { invitee_emails: 'n@example.net' }));
    t.pass('administrators may');
    ok(await asOwner('PATCH', '/realm', { params: { invite_required: true } }));
    ok(await invite(hamlet, { invitee_emails: 'n2@example.net' }));
    t.pass('with invitations required again, hamlet may');
  });

  t.test('POST /invites/{id}/resend: the same link, mailed again', async (t) => {
    const id = await idOf('alice@example.net');
    const first = Inbox.link(inbox.to('alice@example.net')[0]);
    ok(await asHamlet('POST', `/invites/${id}/resend`));
    const mails = inbox.to('alice@example.net');
    t.equal(mails.length, 2, 'a second mail');
    t.equal(Inbox.link(mails[1]), first, 'with the same link');
    ok(await asAdmin('POST', `/invites/${id}/resend`));
    t.pass('an administrator may resend anyone’s');
    t.match(await w.as(othello)('POST', `/invites/${id}/resend`), { status: 400, body: { msg: 'Must be an organization administrator' } }, 'another member may not');
    t.match(await w.as(polonius)('POST', `/invites/${id}/resend`), { status: 400, body: { msg: 'Not allowed for guest users' } }, 'a guest may not');
    t.match(await asHamlet('POST', '/invites/9999/resend'), { status: 400, body: { msg: 'No such invitation' } }, 'no such invitation');
    ok(await invite(owner, { invitee_emails: 'future-owner@example.net', invite_as: 100 }));
    const ownerInvite = await idOf('future-owner@example.net');
    t.match(await asAdmin('POST', `/invites/${ownerInvite}/resend`), { status: 400, body: { code: 'UNAUTHORIZED_PRINCIPAL', msg: 'Must be an organization owner' } }, 'an owner invitation: owners only');
    const links = ok(await asOwner('POST', '/invites/multiuse'));
    // Links are numbered apart from email invitations: take one whose number no email invitation has.
    let linkId = (await listed()).find((i) => i.link_url === links.invite_link)!.id;
    const emailIds = (await listed()).filter((i) => !i.is_multiuse).map((i) => i.id);
    while (emailIds.includes(linkId)) {
      const more = ok(await asOwner('POST', '/invites/multiuse'));
      linkId = (await listed()).find((i) => i.link_url === more.invite_link)!.id;
    }
    t.match(await asOwner('POST', `/invites/${linkId}/resend`), { status: 400, body: { msg: 'No such invitation' } }, 'a reusable link has no address to mail');
    const other = await w.asOther(w.other.owner)('POST', `/invites/${id}/resend`, { host: w.otherHost });
    t.match(other, { status: 400, body: { msg: 'No such invitation' } }, "another realm's administrators do not find it");
  });
});

t.test('a mail the SMTP server refuses is kept in the outbox; the invitation stands', async (t) => {
  const { readdirSync, readFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const w = await startInviteWorld(t, { config: { email: { from: null, smtp: { host: '127.0.0.1', port: 1 } } } });
  const asOwner = w.as(w.root.owner);
  ok(await asOwner('POST', '/invites', { params: { invitee_emails: 'lost@example.net', stream_ids: [] } }));
  const listed = ok(await asOwner('GET', '/invites')).invites as { email: string }[];
  t.ok(listed.some((i) => i.email === 'lost@example.net'), 'the invitation exists');
  const outbox = join(w.ts.dataDir, 'outbox');
  const files = readdirSync(outbox).filter((f) => f.endsWith('.eml'));
  t.equal(files.length, 1, 'one file in <dataDir>/outbox');
  const text = readFileSync(join(outbox, files[0]), 'utf8').replace(/=\r?\n/g, '');
  t.match(text, /To: lost@example\.net/, 'addressed to the invitee');
  t.match(text, /\/join\/[a-z2-7]{24}\//, 'with the link');
  t.match(text, /From: Stoa <noreply@localhost>/, 'from noreply at the external host');
});
