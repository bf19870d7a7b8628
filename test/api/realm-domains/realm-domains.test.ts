import t from 'tap';
import { convergenceHarness } from '../../helpers/convergence.js';
import { byId, join } from '../invites/harness.js';
import { listen } from '../streams/queues.js';
import { startWorld, streamId } from '../streams/world.js';

/**
 * Realm domains: GET and POST /realm/domains, PATCH and DELETE /realm/domains/{domain}, with the
 * reference's validation and messages, the realm_domains events, /register, and invitations in
 * an organization restricted to its domains.
 */
t.test('realm domains', async (t) => {
  const w = await startWorld(t);
  const { owner, admin, hamlet } = w.root;
  const asOwner = w.as(owner);
  const general = await streamId(asOwner, 'general');
  const list = async (who = hamlet) => (await w.as(who)('GET', '/realm/domains')).body.domains;
  const add = (domain: string, allow = false, who = owner) => w.as(who)('POST', '/realm/domains', { params: { domain, allow_subdomains: allow } });
  const failure = async (res: Promise<{ status: number; body: { msg: string } }>) => {
    const r = await res;
    return [r.status, r.body.msg];
  };

  t.test('adding, with the event', async (t) => {
    t.same(await list(), [], 'none at first');
    const members = await listen(w.as(hamlet), { event_types: ['realm_domains'] });
    const res = await add('  Example.ORG ');
    t.equal(res.status, 200, 'added');
    t.match(res.body.new_domain, [Number, 'example.org'], 'answered with its id and the domain as stored');
    t.same(await list(), [{ domain: 'example.org', allow_subdomains: false }], 'anyone may list them');
    t.same(await members.drain(t), [{ type: 'realm_domains', op: 'add', realm_domain: { domain: 'example.org', allow_subdomains: false } }], 'everyone hears of it');
    t.same((await w.as(hamlet)('POST', '/register', { params: { fetch_event_types: ['realm_domains'] } })).body.realm_domains, await list(), 'in /register');
  });

  t.test('errors and permissions', async (t) => {
    t.same(await failure(add('b.org', false, admin)), [400, 'Must be an organization owner'], 'administrators may not');
    t.same(await failure(add('example.org')), [400, 'The domain example.org is already a part of your organization.'], 'twice');
    const invalid: [string, string][] = [
      ['', "Domain can't be empty."],
      ['localhost', 'Domain must have at least one dot (.)'],
      ['.example.org', 'Domain cannot start or end with a dot (.)'],
      ['a..org', "Consecutive '.' are not allowed."],
      ['-a.org', "Subdomains cannot start or end with a '-'."],
      ['a_b.org', "Domain can only have letters, numbers, '.' and '-'s."],
      [`${'a'.repeat(260)}.org`, 'Domain is too long'],
    ];
    for (const [domain, msg] of invalid) t.same(await failure(add(domain)), [400, `Invalid domain: ${msg}`], JSON.stringify(domain));
    t.same(await failure(asOwner('PATCH', '/realm/domains/nowhere.org', { params: { allow_subdomains: true } })), [400, 'No entry found for domain nowhere.org.'], 'changing an unknown one');
    t.same(await failure(asOwner('DELETE', '/realm/domains/nowhere.org')), [400, 'No entry found for domain nowhere.org.'], 'removing an unknown one');
    t.same(await list(), [{ domain: 'example.org', allow_subdomains: false }], 'nothing changed');
  });

  t.test('invitations in an organization restricted to its domains', async (t) => {
    t.equal((await asOwner('PATCH', '/realm', { params: { emails_restricted_to_domains: true } })).status, 200, 'restricted');
    const invite = (emails: string) => asOwner('POST', '/invites', { params: { invitee_emails: emails, stream_ids: [general] } });
    t.equal((await invite('ann@example.org')).status, 200, 'an address of the domain');
    const sub = await invite('ann@mail.example.org');
    t.match(sub.body, { code: 'INVITATION_FAILED', errors: [['ann@mail.example.org', 'Outside your domain.', false]] }, 'not a subdomain, until allowed');
    t.equal((await asOwner('PATCH', '/realm/domains/example.org', { params: { allow_subdomains: true } })).status, 200, 'subdomains allowed');
    t.equal((await invite('bea@mail.example.org')).status, 200, 'then a subdomain passes');
    t.match((await invite('cy+x@example.org')).body, { errors: [['cy+x@example.org', 'Email addresses containing + are not allowed.', false]] }, 'no + in a restricted organization');
    t.match((await invite('dee@example.net')).body, { errors: [['dee@example.net', 'Outside your domain.', false]] }, 'another domain (validate_email_is_valid\'s words)');
    const link = (await asOwner('POST', '/invites/multiuse', { params: { stream_ids: [general] } })).body.invite_link as string;
    const signup = await join(link, 'fay@example.net', 'Fay');
    t.match(byId(signup.html, 'error'), /^Your email address, fay@example\.net, is not in one of the domains that are allowed to register for accounts in this organization\.$/, 'the sign-up form words it as the reference\'s registration form does');
  });

  t.test('an administrator creating an account keeps to the same rules', async (t) => {
    const create = (email: string) => asOwner('POST', '/users', { params: { email, password: 'a-long-password-1', full_name: 'New' } });
    t.same(await failure(create('eve@example.net')), [400, "Email 'eve@example.net' not allowed in this organization"], 'another domain');
    t.same(await failure(create('eve+x@example.org')), [400, 'Email addresses containing + are not allowed.'], 'a + address');
    t.equal((await create('eve@mail.example.org')).status, 200, 'an address of an allowed subdomain');
  });

  t.test('removing the last domain lifts the restriction', async (t) => {
    const members = await listen(w.as(hamlet), { event_types: ['realm_domains', 'realm'] });
    t.equal((await asOwner('DELETE', '/realm/domains/example.org')).status, 200, 'removed');
    t.same(await members.drain(t), [
      { type: 'realm_domains', op: 'remove', domain: 'example.org' },
      { type: 'realm', op: 'update', property: 'emails_restricted_to_domains', value: false },
    ], 'the removal, and the setting turned off');
    const state = (await asOwner('POST', '/register', { params: { fetch_event_types: ['realm'] } })).body;
    t.equal(state.realm_emails_restricted_to_domains, false, 'off');
    const disposable = await asOwner('POST', '/users', { params: { email: 'x@mailinator.com', password: 'a-long-password-1', full_name: 'X' } });
    t.same([disposable.status, disposable.body.msg], [400, 'Disposable email addresses are not allowed in this organization'], 'unrestricted, disposable addresses are still refused');
  });

  t.test('events keep /register current', async (t) => {
    const { ok, converges } = convergenceHarness(t, w.ts);
    await converges('add, change, remove', async () => {
      await ok(owner, 'POST', '/realm/domains', { domain: 'one.org', allow_subdomains: false });
      await ok(owner, 'POST', '/realm/domains', { domain: 'two.org', allow_subdomains: true });
      await ok(owner, 'PATCH', '/realm/domains/one.org', { allow_subdomains: true });
      await ok(owner, 'DELETE', '/realm/domains/two.org');
    }, [{ ...owner }, { ...hamlet }]);
  });
});
