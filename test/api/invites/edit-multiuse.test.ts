import t from 'tap';
import { streamId, subscribe } from '../streams/world.js';
import { join, ok, startInviteWorld } from './harness.js';

// PATCH /invites/multiuse/{invite_id} (Zulip 11), as the reference's API test suite calls it
// (python_examples.edit_reusable_invitation_link): {invite_as: 600, stream_ids: [...]}.
t.test('PATCH /invites/multiuse/{invite_id}', async (t) => {
  const w = await startInviteWorld(t);
  const { owner, admin, hamlet } = w.root;
  const asOwner = w.as(owner);
  const asAdmin = w.as(admin);
  await subscribe(asAdmin, ['Denmark', 'Scotland']);
  const denmark = await streamId(asAdmin, 'Denmark');
  const scotland = await streamId(asAdmin, 'Scotland');
  const listed = async () => ok(await asOwner('GET', '/invites')).invites as Record<string, any>[];
  const link = ok(await asAdmin('POST', '/invites/multiuse', { params: { invite_as: 400, stream_ids: [denmark] } })).invite_link as string;
  const id = (await listed()).find((i) => i.link_url === link)!.id as number;

  t.test('the creator changes the role and channels; GET /invites shows it, and a new account gets it', async (t) => {
    const res = await asAdmin('PATCH', `/invites/multiuse/${id}`, { params: { invite_as: 600, stream_ids: [scotland] } });
    t.same(res.body, { result: 'success', msg: '' }, 'success');
    t.match((await listed()).find((i) => i.id === id), { invited_as: 600, link_url: link }, 'now a guest invitation, same link');
    const joined = await join(link, 'gina@example.net', 'Gina');
    t.equal(joined.status, 200, 'someone joins with it');
    const gina = (ok(await asOwner('GET', '/users')).members as any[]).find((u) => u.email === 'gina@example.net');
    t.equal(gina.role, 600, 'as a guest');
    const subs = ok(await asAdmin('GET', '/users/me/subscriptions', { params: { include_subscribers: true } })).subscriptions as any[];
    t.ok(subs.find((s) => s.stream_id === scotland).subscribers.includes(gina.user_id), 'subscribed to the channel the link now names');
    t.notOk(subs.find((s) => s.stream_id === denmark).subscribers.includes(gina.user_id), 'not to the one it named before');
  });

  t.test('errors, and nothing changes', async (t) => {
    const before = (await listed()).find((i) => i.id === id);
    const byMember = await w.as(hamlet)('PATCH', `/invites/multiuse/${id}`, { params: { invite_as: 400 } });
    t.equal(byMember.status, 400, 'a member cannot edit an administrator\'s link');
    const tooHigh = await asAdmin('PATCH', `/invites/multiuse/${id}`, { params: { invite_as: 100 } });
    t.same([tooHigh.status, tooHigh.body.msg], [400, 'Must be an organization owner'], 'only owners invite owners');
    const badRole = await asAdmin('PATCH', `/invites/multiuse/${id}`, { params: { invite_as: 7 } });
    t.equal(badRole.status, 400, 'an unknown role');
    const badStream = await asAdmin('PATCH', `/invites/multiuse/${id}`, { params: { stream_ids: [9999] } });
    t.equal(badStream.status, 400, 'an unknown channel');
    const missing = await asAdmin('PATCH', '/invites/multiuse/9999', { params: { invite_as: 400 } });
    t.same([missing.status, missing.body.msg], [400, 'No such invitation'], 'an unknown invitation');
    t.same((await listed()).find((i) => i.id === id), before, 'unchanged');
  });

  t.test('an email invitation is not a reusable link; a revoked link cannot be edited', async (t) => {
    ok(await asAdmin('POST', '/invites', { params: { invitee_emails: 'ed@example.net', stream_ids: [] } }));
    const email = (await listed()).find((i) => !i.is_multiuse && i.email === 'ed@example.net')!;
    const res = await asAdmin('PATCH', `/invites/multiuse/${email.id}`, { params: { invite_as: 400 } });
    t.same([res.status, res.body.msg], [400, 'No such invitation'], 'an email invitation is not found here');
    ok(await asAdmin('DELETE', `/invites/multiuse/${id}`));
    const revoked = await asAdmin('PATCH', `/invites/multiuse/${id}`, { params: { invite_as: 400 } });
    t.equal(revoked.status, 400, 'a revoked link');
  });
});
