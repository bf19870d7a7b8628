import t from 'tap';
import { convergenceHarness, type Viewer } from '../../helpers/convergence.js';
import { streamId, subscribe } from '../streams/world.js';
import { Inbox, join, ok, startInviteWorld } from './harness.js';

/**
 * Every invitation action's events, applied by each viewer's client to its snapshot, give what
 * a fresh POST /register gives (test/helpers/convergence.ts): the invitation events themselves
 * carry no state, but joining touches users, subscriptions, groups and messages.
 */
t.test('invitation events converge with a fresh snapshot', async (t) => {
  const w = await startInviteWorld(t, { smtp: true });
  const { owner, admin, hamlet, othello, polonius } = w.root;
  const everyone: Viewer[] = [owner, admin, hamlet, othello, polonius, w.shiva];
  const { converges: convergesFor } = convergenceHarness(t, w.ts);
  const converges = (name: string, action: () => Promise<unknown>) => convergesFor(name, action, everyone, { sections: ['realm_user_groups', 'cross_realm_bots'] });
  await subscribe(w.as(owner), ['design']);
  const design = await streamId(w.as(owner), 'design');
  const general = await streamId(w.as(owner), 'general');
  ok(await w.as(owner)('PATCH', '/realm', { params: { signup_announcements_stream_id: general } }));

  let link = '';
  await converges('a reusable link', async () => {
    link = ok(await w.as(admin)('POST', '/invites/multiuse', { params: { stream_ids: [design], group_ids: [w.teamGroupId], include_realm_default_subscriptions: true } })).invite_link;
  });
  await converges('joining through it: a user, subscriptions, a group, messages', async () => {
    if ((await join(link, 'una@example.net', 'Una')).status !== 200) throw new Error('join failed');
  });
  await converges('an email invitation', () => w.as(hamlet)('POST', '/invites', { params: { invitee_emails: 'vic@example.net', stream_ids: [design], invite_as: 600 } }).then(ok));
  await converges('joining as a guest through it, hamlet told', async () => {
    if ((await join(Inbox.link(w.inbox!.to('vic@example.net')[0]), '', 'Vic')).status !== 200) throw new Error('join failed');
  });
  await converges('revoking the link', async () => {
    const id = (ok(await w.as(owner)('GET', '/invites')).invites as { id: number; link_url?: string }[]).find((i) => i.link_url === link)!.id;
    ok(await w.as(owner)('DELETE', `/invites/multiuse/${id}`));
  });
});
