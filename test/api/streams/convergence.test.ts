import t from 'tap';
import { CAPABILITIES, convergenceHarness } from '../../helpers/convergence.js';
import { startWorld, streamId, subscribe } from './world.js';

/**
 * Channel and subscription changes converge: each viewer's snapshot plus the events it received
 * equals a fresh /register, for users of every role, including ones who gain or lose sight of a
 * channel.
 */
t.test('channel changes converge with a fresh snapshot', async (t) => {
  const w = await startWorld(t);
  const { owner, admin, hamlet, othello, polonius } = w.root;
  const everyone = [owner, admin, hamlet, othello, polonius];
  const { ok, converges } = convergenceHarness(t, w.ts);
  await subscribe(w.as(hamlet), ['lounge'], { subscriptions: [{ name: 'lounge', description: 'chat' }] });
  await subscribe(w.as(hamlet), ['plans'], { invite_only: true });
  const lounge = await streamId(w.as(owner), 'lounge');
  const plans = await streamId(w.as(owner), 'plans');
  const general = await streamId(w.as(owner), 'general');
  const props = (stream_id: number, property: string, value: unknown) => ok(hamlet, 'POST', '/users/me/subscriptions/properties', { subscription_data: [{ stream_id, property, value }] });
  const patch = (who: typeof owner, id: number, params: Record<string, unknown>) => ok(who, 'PATCH', `/streams/${id}`, params);

  await converges('a subscription colour', () => props(lounge, 'color', '#123456'), everyone);
  await converges('muting', () => props(lounge, 'is_muted', true), everyone);
  await converges('unmuting through in_home_view', () => props(lounge, 'in_home_view', true), everyone);
  await converges('pinning', () => props(general, 'pin_to_top', true), everyone);
  await converges('a notification setting', () => props(general, 'desktop_notifications', true), everyone);
  await converges('a rename', () => patch(hamlet, lounge, { new_name: 'Lounge' }), everyone);
  await converges('a description', () => patch(hamlet, lounge, { description: 'Talk about **anything**' }), everyone);
  const admins = (await ok(owner, 'GET', `/streams/${lounge}`)).stream.can_remove_subscribers_group as number;
  await converges('a posting permission (and stream_post_policy)', () => patch(admin, lounge, { can_send_message_group: { new: admins } }), everyone);
  await converges('message retention', () => patch(owner, lounge, { message_retention_days: 30 }), everyone);
  await converges('a default channel', () => patch(admin, lounge, { is_default_stream: true }), everyone);
  await converges('no longer a default channel', () => patch(admin, lounge, { is_default_stream: false }), everyone);
  await converges('a private channel administered by one more member', () => patch(hamlet, plans, { can_administer_channel_group: { new: { direct_members: [hamlet.userId, othello.userId], direct_subgroups: [] } } }), everyone);
  await converges('and by one less', () => patch(hamlet, plans, { can_administer_channel_group: { new: { direct_members: [hamlet.userId], direct_subgroups: [] } } }), everyone);
  await converges('making a channel private', () => patch(hamlet, lounge, { is_private: true }), everyone);
  await converges('and public again', () => patch(hamlet, lounge, { is_private: false }), everyone);
  await converges('making a private channel public', () => patch(hamlet, plans, { is_private: false, history_public_to_subscribers: true }), everyone);
  await converges('archiving a channel', () => ok(admin, 'DELETE', `/streams/${lounge}`), everyone);
  await converges('archiving a default channel, for clients that show archived channels', () => ok(owner, 'DELETE', `/streams/${general}`), everyone, {
    register: { client_capabilities: { ...CAPABILITIES, archived_channels: true } },
  });
});
