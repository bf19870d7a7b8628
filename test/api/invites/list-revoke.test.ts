import t from 'tap';
import { checkEvent } from '../../helpers/openapi.js';
import type { Person } from '../streams/world.js';
import { ok, startInviteWorld } from './harness.js';

/**
 * GET /invites, DELETE /invites/{id}, DELETE /invites/multiuse/{id}, and the invites_changed
 * events that tell administrators and the creator to fetch the list again.
 */
t.test('listing and revoking invitations', async (t) => {
  const w = await startInviteWorld(t, { groupSettings: { create_multiuse_invite_group: 'role:members' } });
  const { owner, admin, hamlet, othello, polonius, bot } = w.root;
  const asOwner = w.as(owner);
  const asAdmin = w.as(admin);
  const asHamlet = w.as(hamlet);
  const asOthello = w.as(othello);
  const emailInvite = async (who: Person, email: string, params: Record<string, unknown> = {}) => {
    ok(await w.as(who)('POST', '/invites', { params: { invitee_emails: email, stream_ids: [], ...params } }));
    return (ok(await asOwner('GET', '/invites')).invites as { email?: string; id: number }[]).find((i) => i.email === email)!.id;
  };
  const linkInvite = async (who: Person, params: Record<string, unknown> = {}) => {
    const link = ok(await w.as(who)('POST', '/invites/multiuse', { params })).invite_link;
    return (ok(await asOwner('GET', '/invites')).invites as { link_url?: string; id: number }[]).find((i) => i.link_url === link)!.id;
  };
  // Email invitations and reusable links are numbered apart (as the reference numbers them), so
  // an invitation is known by its kind and id: 'e3', 'm1'.
  const E = (id: number) => `e${id}`;
  const M = (id: number) => `m${id}`;
  const ids = async (who: Person) => (ok(await w.as(who)('GET', '/invites')).invites as { id: number; is_multiuse: boolean }[]).map((i) => (i.is_multiuse ? M(i.id) : E(i.id))).sort();

  const hamletMail = await emailInvite(hamlet, 'h1@example.net');
  const hamletLink = await linkInvite(hamlet);
  const adminMail = await emailInvite(admin, 'a1@example.net');
  const ownerLink = await linkInvite(owner, { invite_as: 100 });

  t.test('GET /invites: administrators see all, others their own', async (t) => {
    t.same(await ids(owner), [E(hamletMail), M(hamletLink), E(adminMail), M(ownerLink)].sort(), 'the owner sees every one');
    t.same(await ids(admin), await ids(owner), 'so does an administrator');
    t.same(await ids(hamlet), [E(hamletMail), M(hamletLink)].sort(), 'hamlet sees his own');
    t.same(await ids(othello), [], 'othello has none');
    t.match(await w.as(polonius)('GET', '/invites'), { status: 400, body: { msg: 'Not allowed for guest users' } }, 'guests may not list');
    t.match(await w.as(bot)('GET', '/invites'), { status: 400, body: { msg: 'This endpoint does not accept bot requests.' } }, 'bots may not list');
    const all = ok(await asOwner('GET', '/invites')).invites as { is_multiuse: boolean }[];
    t.same(all.map((i) => i.is_multiuse), [false, false, true, true], 'email invitations first, then links');
    t.same(ok(await w.asOther(w.other.owner)('GET', '/invites')).invites, [], "another realm's owner sees none of them");
  });

  t.test('expired invitations are not listed; never-expiring ones are', async (t) => {
    const expired = ok(await asAdmin('POST', '/invites/multiuse', { params: { invite_expires_in_minutes: -1 } })).invite_link;
    const links = (ok(await asAdmin('GET', '/invites')).invites as { link_url?: string }[]).map((i) => i.link_url);
    t.notOk(links.includes(expired), 'an invitation made expired is not listed');
    const forever = await linkInvite(admin, { invite_expires_in_minutes: null });
    t.ok((await ids(admin)).includes(M(forever)), 'a never-expiring one is');
  });

  t.test('DELETE /invites/{id}', async (t) => {
    t.match(await asOthello('DELETE', `/invites/${hamletMail}`), { status: 400, body: { msg: 'Must be an organization administrator' } }, "not someone else's, as a member");
    t.match(await w.as(polonius)('DELETE', `/invites/${hamletMail}`), { status: 400, body: { msg: 'Not allowed for guest users' } }, 'guests may not');
    const linkOnly = [hamletLink, ownerLink].find((id) => id !== hamletMail && id !== adminMail)!;
    t.match(await asHamlet('DELETE', `/invites/${linkOnly}`), { status: 400, body: { msg: 'No such invitation' } }, 'a link\'s id is no email invitation\'s');
    t.match(await asHamlet('DELETE', '/invites/424242'), { status: 400, body: { msg: 'No such invitation' } }, 'no such id');
    t.match(await w.asOther(w.other.owner)('DELETE', `/invites/${hamletMail}`), { status: 400, body: { msg: 'No such invitation' } }, 'not from another realm');
    ok(await asHamlet('DELETE', `/invites/${hamletMail}`));
    t.notOk((await ids(owner)).includes(E(hamletMail)), 'gone from the list');
    t.match(await asHamlet('DELETE', `/invites/${hamletMail}`), { status: 400, body: { msg: 'No such invitation' } }, 'twice: no such invitation');
    ok(await asAdmin('DELETE', `/invites/${await emailInvite(hamlet, 'h2@example.net')}`));
    t.pass("an administrator revokes a member's");
    const ownerMail = await emailInvite(owner, 'o1@example.net', { invite_as: 100 });
    t.match(await asAdmin('DELETE', `/invites/${ownerMail}`), { status: 400, body: { code: 'UNAUTHORIZED_PRINCIPAL', msg: 'Must be an organization owner' } }, 'an owner invitation: owners only');
    ok(await asOwner('DELETE', `/invites/${ownerMail}`));
  });

  t.test('DELETE /invites/multiuse/{id}', async (t) => {
    t.match(await asOthello('DELETE', `/invites/multiuse/${hamletLink}`), { status: 400, body: { msg: 'Must be an organization administrator' } }, "not someone else's, as a member");
    // A new email invitation's id is above every link's number (each link also took a row id).
    const mailOnly = await emailInvite(admin, 'a2@example.net');
    t.match(await asHamlet('DELETE', `/invites/multiuse/${mailOnly}`), { status: 400, body: { msg: 'No such invitation' } }, 'an email invitation\'s id is no link\'s');
    t.match(await asAdmin('DELETE', `/invites/multiuse/${ownerLink}`), { status: 400, body: { msg: 'Must be an organization owner' } }, 'an owner link: owners only');
    ok(await asHamlet('DELETE', `/invites/multiuse/${hamletLink}`));
    t.notOk((await ids(owner)).includes(M(hamletLink)), 'gone from the list');
    t.match(await asHamlet('DELETE', `/invites/multiuse/${hamletLink}`), { status: 400, body: { msg: 'Invitation has already been revoked' } }, 'twice: already revoked');
    ok(await asOwner('DELETE', `/invites/multiuse/${ownerLink}`));
    t.match(await asOwner('DELETE', '/invites/multiuse/424242'), { status: 400, body: { msg: 'No such invitation' } }, 'no such id');
  });

  t.test('invites_changed goes to administrators and the creator, and to nobody else', async (t) => {
    const people = { owner, admin, hamlet, othello, polonius };
    const queues: Record<string, string> = {};
    const last: Record<string, number> = {};
    for (const [name, who] of Object.entries(people)) {
      const reg = ok(await w.as(who)('POST', '/register', { params: { event_types: ['invites_changed'] } }));
      queues[name] = reg.queue_id;
      last[name] = reg.last_event_id;
    }
    const drain = async () => {
      const got: Record<string, number> = {};
      for (const [name, who] of Object.entries(people)) {
        const events = ok(await w.as(who)('GET', '/events', { params: { queue_id: queues[name], last_event_id: last[name], dont_block: true } })).events as { type: string; id: number }[];
        for (const e of events) t.doesNotThrow(() => checkEvent(e), `${name}: the event matches the reference schema`);
        got[name] = events.filter((e) => e.type === 'invites_changed').length;
        if (events.length > 0) last[name] = events[events.length - 1].id;
      }
      return got;
    };
    const id = await linkInvite(hamlet);
    t.same(await drain(), { owner: 1, admin: 1, hamlet: 1, othello: 0, polonius: 0 }, 'made by hamlet');
    ok(await asOwner('DELETE', `/invites/multiuse/${id}`));
    t.same(await drain(), { owner: 1, admin: 1, hamlet: 1, othello: 0, polonius: 0 }, "hamlet's, revoked by the owner");
    await emailInvite(othello, 'o2@example.net');
    t.same(await drain(), { owner: 1, admin: 1, hamlet: 0, othello: 1, polonius: 0 }, 'made by othello');
  });
});
