import t from 'tap';
import type { Credentials } from '../../helpers/server.js';
import { streamId, subscribe } from '../streams/world.js';
import { byId, Inbox, join, ok, page, problemOf, startInviteWorld } from './harness.js';

/**
 * The link works: GET /join/<key>/ shows the sign-up form, and submitting it makes the account
 * the invitation describes (role, channels, groups), sends the welcome messages, and tells the
 * new user how to connect. Links that cannot be used say why. Through HTTP, as a browser
 * without scripts would; test/api/invites/browser.test.ts does it in a real browser.
 */

/** The credentials a welcome page gives (its zuliprc), checked against POST /fetch_api_key. */
function credentialsFrom(html: string): Credentials {
  const rc = byId(html, 'zuliprc') ?? '';
  return { email: /email=(.*)/.exec(rc)![1], apiKey: /key=(.*)/.exec(rc)![1] };
}

t.test('joining through a reusable link', async (t) => {
  const w = await startInviteWorld(t);
  const { owner, admin } = w.root;
  const asOwner = w.as(owner);
  const asAdmin = w.as(admin);
  await subscribe(asOwner, ['design']);
  const design = await streamId(asOwner, 'design');
  const general = await streamId(asOwner, 'general');
  const link = ok(
    await asAdmin('POST', '/invites/multiuse', { params: { invite_as: 300, stream_ids: [design], group_ids: [w.teamGroupId], welcome_message_custom_text: 'Read #**design** first.' } }),
  ).invite_link as string;

  t.test('GET: the sign-up form', async (t) => {
    const res = await page(link);
    t.equal(res.status, 200, '200');
    t.match(res.headers['content-type'], /^text\/html; charset=utf-8/, 'HTML');
    t.equal(res.headers['cache-control'], 'no-store', 'not cached');
    t.equal(res.headers['referrer-policy'], 'no-referrer', 'the key does not leak through Referer');
    t.match(res.headers['content-security-policy'], /default-src 'none'/, 'no scripts, no outside resources');
    t.match(res.html, /<form method="post" action="\/join\/[a-z2-7]{24}\/">/, 'a form that posts back to the link');
    t.match(res.html, /admin invited you to join <b>Root<\/b>/, 'says who invites, to what');
    t.match(res.html, /<input id="email" name="email" type="email" value="" required/, 'asks for an address');
    const bare = await page(link.replace(/\/$/, ''));
    t.equal(bare.status, 200, 'the link without its trailing slash works too');
  });

  t.test('POST with mistakes: the form again, with what was typed and what is wrong', async (t) => {
    const cases: [Record<string, string>, string, RegExp][] = [
      [{ email: 'not-an-address', full_name: 'Nina', password: 'long-enough' }, 'email', /Please enter a valid email address\./],
      [{ email: '', full_name: 'Nina', password: 'long-enough' }, 'email', /Please enter your email address\./],
      [{ email: 'hamlet@example.com', full_name: 'Nina', password: 'long-enough' }, 'email', /already has an account/],
      [{ email: 'nina@mailinator.com', full_name: 'Nina', password: 'long-enough' }, 'email', /Please use your real email address\./],
      [{ email: 'nina@example.net', full_name: 'Ni*na', password: 'long-enough' }, 'full_name', /Invalid characters in name!/],
      [{ email: 'nina@example.net', full_name: '   ', password: 'long-enough' }, 'full_name', /Name too short!/],
      [{ email: 'nina@example.net', full_name: 'Nina', password: 'short' }, 'password', /too weak/],
      [{ email: 'nina@example.net', full_name: 'Nina', password: 'x'.repeat(101) }, 'password', /too long/],
    ];
    for (const [form, field, message] of cases) {
      const res = await page(link, form);
      t.equal(res.status, 400, `${JSON.stringify(form).slice(0, 60)}: 400`);
      t.match(res.html, new RegExp(`id="error" data-field="${field}">`), `the problem is with ${field}`);
      t.match(byId(res.html, 'error'), message, 'and says what it is');
      if (form.email) t.match(res.html, `value="${form.email}"`, 'the address typed is kept');
    }
    t.notOk((ok(await asOwner('GET', '/users')).members as { email: string }[]).some((u) => u.email.startsWith('nina@')), 'no account was made');
  });

  let nina: Credentials;
  t.test('POST: the account, and how to connect', async (t) => {
    const res = await join(link, 'Nina@Example.net', '  Nina Simone ', 'nina-password');
    t.equal(res.status, 200, '200');
    t.equal(byId(res.html, 'welcome'), 'Welcome to Root, Nina Simone!', 'welcomed by name');
    t.equal(byId(res.html, 'server-url'), w.ts.server.url.replace('127.0.0.1', 'localhost'), 'the server URL');
    t.equal(byId(res.html, 'account-email'), 'Nina@Example.net', 'the email address');
    t.match(res.html, /the password you just chose/, 'and the password');
    t.equal(byId(res.html, 'chmod'), 'chmod 600 ~/.zuliprc', 'and to keep the zuliprc private, as zulip-terminal requires');
    nina = credentialsFrom(res.html);
    const key = ok(await w.ts.request('POST', '/fetch_api_key', { auth: null, params: { username: 'nina@example.net', password: 'nina-password' } }));
    t.equal(key.api_key, nina.apiKey, 'the password logs in, and the zuliprc key is the account’s');
  });

  t.test('the account is what the invitation said', async (t) => {
    const me = ok(await w.ts.as(nina)('GET', '/users/me'));
    t.match(me, { full_name: 'Nina Simone', role: 300, is_admin: false, is_bot: false }, 'a moderator');
    const subs = (ok(await w.ts.as(nina)('GET', '/users/me/subscriptions')).subscriptions as { stream_id: number }[]).map((s) => s.stream_id);
    t.same(subs, [design], 'subscribed to the invitation’s channel only (not the default channels)');
    const reg = ok(await w.ts.as(nina)('POST', '/register', { params: { fetch_event_types: ['realm_user_groups'] } }));
    const team = (reg.realm_user_groups as { id: number; members: number[] }[]).find((g) => g.id === w.teamGroupId)!;
    t.ok(team.members.includes(me.user_id), 'a member of the invitation’s group');
    t.notOk(subs.includes(general), 'not in general');
  });

  t.test('Welcome Bot greets the new user, then with the invitation’s text', async (t) => {
    const res = ok(await w.ts.as(nina)('GET', '/messages', { params: { anchor: 'newest', num_before: 20, num_after: 0, narrow: JSON.stringify([{ operator: 'is', operand: 'dm' }]), apply_markdown: false } }));
    const dms = res.messages as { sender_email: string; content: string; flags: string[] }[];
    t.equal(dms.length, 2, 'two direct messages');
    t.match(dms[0], { sender_email: 'welcome-bot@zulip.com', content: /^Hello, and welcome to Zulip!/ }, 'the greeting first');
    t.ok(dms[0].flags.includes('starred'), 'starred');
    t.match(dms[1], { sender_email: 'welcome-bot@zulip.com', content: 'Read #**design** first.' }, 'then the custom text');
    const adminDms = ok(await asAdmin('GET', '/messages', { params: { anchor: 'newest', num_before: 5, num_after: 0, narrow: JSON.stringify([{ operator: 'is', operand: 'dm' }]) } })).messages;
    t.same(adminDms, [], 'a reusable link does not notify its creator');
  });

  t.test('a reusable link goes on working, for several people', async (t) => {
    const res = await join(link, 'omar@example.net', 'Omar');
    t.equal(res.status, 200, 'a second account');
    const again = await join(link, 'omar@example.net', 'Omar');
    t.match(byId(again.html, 'error'), /already has an account/, 'but not twice for one address');
    t.ok((ok(await asOwner('GET', '/invites')).invites as { link_url: string }[]).some((i) => i.link_url === link), 'still listed');
  });

  t.test('include_realm_default_subscriptions adds the default channels, as they are at joining', async (t) => {
    const link2 = ok(await asAdmin('POST', '/invites/multiuse', { params: { stream_ids: [design], include_realm_default_subscriptions: true } })).invite_link;
    const creds = credentialsFrom((await join(link2, 'pia@example.net', 'Pia')).html);
    const subs = (ok(await w.ts.as(creds)('GET', '/users/me/subscriptions')).subscriptions as { stream_id: number }[]).map((s) => s.stream_id).sort((a, b) => a - b);
    t.same(subs, [general, design].sort((a, b) => a - b), 'general and design');
  });

  t.test('link problems say so', async (t) => {
    const expired = ok(await asAdmin('POST', '/invites/multiuse', { params: { invite_expires_in_minutes: -5 } })).invite_link;
    let res = await page(expired);
    t.equal(res.status, 404, 'expired: 404');
    t.equal(problemOf(res.html), 'expired', 'expired');
    t.match(res.html, /This invitation has expired/, 'in words');
    t.match(res.html, /Ask admin, or an administrator of Root, for a new invitation\./, 'and what to do');
    t.equal((await join(expired, 'late@example.net', 'Late')).status, 404, 'and submitting it makes nothing');

    const revoked = ok(await asAdmin('POST', '/invites/multiuse')).invite_link;
    const id = (ok(await asAdmin('GET', '/invites')).invites as { id: number; link_url: string }[]).find((i) => i.link_url === revoked)!.id;
    ok(await asAdmin('DELETE', `/invites/multiuse/${id}`));
    res = await page(revoked);
    t.equal(problemOf(res.html), 'revoked', 'revoked');
    t.match(res.html, /This invitation has been revoked/, 'in words');
    t.equal(problemOf((await join(revoked, 'late@example.net', 'Late')).html), 'revoked', 'submitting it too');

    const origin = new URL(link).origin;
    res = await page(`${origin}/join/invalid_key/`);
    t.equal(problemOf(res.html), 'malformed', 'a malformed key');
    t.equal(res.status, 404, '404');
    res = await page(`${origin}/join/${'a'.repeat(24)}/`);
    t.equal(problemOf(res.html), 'unknown', 'an unknown key');
    const otherLink = ok(await w.asOther(w.other.owner)('POST', '/invites/multiuse')).invite_link as string;
    const key = /\/join\/([a-z2-7]+)\//.exec(otherLink)![1];
    res = await page(`${origin}/join/${key}/`);
    t.equal(problemOf(res.html), 'unknown', "another organization's link at this one's address");
    res = await page(otherLink.replace(/^http:\/\/[^/]+/, `http://${w.otherHost}`));
    t.equal(res.status, 200, 'and it works at its own');
    t.notOk((ok(await asOwner('GET', '/users')).members as { email: string }[]).some((u) => u.email === 'late@example.net'), 'no account for the refused attempts');
  });
});

t.test('joining through an email invitation', async (t) => {
  const w = await startInviteWorld(t, { smtp: true });
  const inbox = w.inbox!;
  const { owner, admin, hamlet, othello } = w.root;
  const general = await streamId(w.as(owner), 'general');
  ok(await w.as(owner)('PATCH', '/realm', { params: { signup_announcements_stream_id: general } }));
  ok(await w.as(hamlet)('POST', '/invites', { params: { invitee_emails: 'quinn@example.net', stream_ids: [], include_realm_default_subscriptions: true } }));
  ok(await w.as(othello)('POST', '/invites', { params: { invitee_emails: 'Quinn@example.net', stream_ids: [] } }));
  const [mine, othellos] = inbox.to('quinn@example.net').concat(inbox.to('Quinn@example.net')).map(Inbox.link);

  t.test('the form shows the invited address, fixed', async (t) => {
    const res = await page(mine);
    t.match(res.html, /<input id="email" name="email" type="email" value="quinn@example.net" readonly>/, 'read-only');
    t.match(res.html, /hamlet invited you/, 'from hamlet');
  });

  let quinn: Credentials;
  t.test('the account takes the invited address, whatever the form says', async (t) => {
    const res = await join(mine, 'someone-else@example.net', 'Quinn');
    t.equal(res.status, 200, 'made');
    t.equal(byId(res.html, 'account-email'), 'quinn@example.net', 'the invited address');
    quinn = { email: 'quinn@example.net', apiKey: /key=(.*)/.exec(byId(res.html, 'zuliprc')!)![1] };
    const me = ok(await w.ts.as(quinn)('GET', '/users/me'));
    t.equal(me.role, 400, 'a member');
    const subs = (ok(await w.ts.as(quinn)('GET', '/users/me/subscriptions')).subscriptions as { stream_id: number }[]).map((s) => s.stream_id);
    t.same(subs, [general], 'the default channels, as asked');
  });

  t.test('the inviter and the signups channel are told', async (t) => {
    const dms = ok(await w.as(hamlet)('GET', '/messages', { params: { anchor: 'newest', num_before: 5, num_after: 0, narrow: JSON.stringify([{ operator: 'is', operand: 'dm' }]), apply_markdown: false } })).messages;
    t.match(dms.at(-1), { sender_email: 'notification-bot@zulip.com', content: /^@_\*\*Quinn\|\d+\*\* accepted your invitation to join Zulip!$/ }, 'Notification Bot tells hamlet');
    const signups = ok(await w.as(admin)('GET', '/messages', { params: { anchor: 'newest', num_before: 5, num_after: 0, narrow: JSON.stringify([{ operator: 'channel', operand: general }, { operator: 'topic', operand: 'signups' }]), apply_markdown: false } })).messages;
    t.match(signups.at(-1), { sender_email: 'notification-bot@zulip.com', content: /^@_\*\*Quinn\|\d+\*\* joined this organization\.$/ }, 'and the signups topic');
    const quinnDms = ok(await w.ts.as(quinn)('GET', '/messages', { params: { anchor: 'newest', num_before: 5, num_after: 0, narrow: JSON.stringify([{ operator: 'is', operand: 'dm' }]) } })).messages;
    t.equal(quinnDms.length, 1, 'with no custom text anywhere, only the greeting');
  });

  t.test('an email invitation is used once; the address’s other invitations are revoked', async (t) => {
    t.equal(problemOf((await page(mine)).html), 'used', 'used');
    t.match((await page(mine)).html, /This invitation has already been used/, 'in words');
    t.equal(problemOf((await page(othellos)).html), 'revoked', "othello's invitation of the same address: revoked");
    const listed = ok(await w.as(owner)('GET', '/invites')).invites as { email?: string }[];
    t.notOk(listed.some((i) => i.email?.toLowerCase() === 'quinn@example.net'), 'neither is listed');
  });

  t.test('notify_referrer_on_join false: the inviter is not told', async (t) => {
    ok(await w.as(hamlet)('POST', '/invites', { params: { invitee_emails: 'ravi@example.net', stream_ids: [], notify_referrer_on_join: false } }));
    const before = ok(await w.as(hamlet)('GET', '/messages', { params: { anchor: 'newest', num_before: 50, num_after: 0, narrow: JSON.stringify([{ operator: 'is', operand: 'dm' }]) } })).messages.length;
    t.equal((await join(Inbox.link(inbox.to('ravi@example.net')[0]), '', 'Ravi')).status, 200, 'joined');
    const after = ok(await w.as(hamlet)('GET', '/messages', { params: { anchor: 'newest', num_before: 50, num_after: 0, narrow: JSON.stringify([{ operator: 'is', operand: 'dm' }]) } })).messages.length;
    t.equal(after, before, 'no message to hamlet');
  });
});

t.test('the welcome text: the invitation’s, the organization’s, or none', async (t) => {
  const w = await startInviteWorld(t, { settings: { welcome_message_custom_text: 'The organization says hello.' } });
  const asAdmin = w.as(w.root.admin);
  const texts = async (params: Record<string, unknown>, email: string) => {
    const link = ok(await asAdmin('POST', '/invites/multiuse', { params })).invite_link;
    const html = (await join(link, email, email.split('@')[0])).html;
    const creds = { email, apiKey: /key=(.*)/.exec(byId(html, 'zuliprc')!)![1] };
    const dms = ok(await w.ts.as(creds)('GET', '/messages', { params: { anchor: 'newest', num_before: 10, num_after: 0, narrow: JSON.stringify([{ operator: 'is', operand: 'dm' }]), apply_markdown: false } })).messages as { content: string }[];
    t.match(dms[0].content, /^Hello, and welcome to Zulip!/, `${email}: the greeting always`);
    return dms.slice(1).map((m) => m.content);
  };
  t.same(await texts({ welcome_message_custom_text: 'Our own words.' }, 'a1@example.net'), ['Our own words.'], 'the invitation’s text');
  t.same(await texts({}, 'a2@example.net'), ['The organization says hello.'], 'none given: the organization’s');
  t.same(await texts({ welcome_message_custom_text: '' }, 'a3@example.net'), [], 'the empty string: no custom message');
});
