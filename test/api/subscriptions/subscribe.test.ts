import t from 'tap';
import { startWorld, streamId } from '../streams/world.js';

t.test('POST /users/me/subscriptions', async (t) => {
  const w = await startWorld(t);
  const { owner, hamlet, othello } = w.root;
  const get = async (name: string) => (await w.as(owner)('GET', `/streams/${await streamId(w.as(owner), name)}`)).body.stream;

  t.test('POST /users/me/subscriptions: creates a channel and subscribes the caller', async (t) => {
    const res = await w.as(hamlet)('POST', '/users/me/subscriptions', { params: { subscriptions: [{ name: 'Verona', description: 'Italian city' }] } });
    t.equal(res.status, 200, 'status 200');
    t.same(res.body.subscribed, { [hamlet.userId]: ['Verona'] }, 'subscribed is keyed by user id');
    t.same(res.body.already_subscribed, {}, 'nothing was subscribed already');
    t.notOk('unauthorized' in res.body, 'unauthorized only with authorization_errors_fatal=false');
    const stream = await get('Verona');
    t.equal(stream.description, 'Italian city', 'description stored');
    t.equal(stream.rendered_description, '<p>Italian city</p>', 'description rendered');
    t.equal(stream.creator_id, hamlet.userId, 'creator recorded');
    t.equal(stream.invite_only, false, 'public by default');
    t.equal(stream.history_public_to_subscribers, true, 'public channels share history');
    t.equal(stream.is_web_public, false, 'not web-public by default');
    t.equal(stream.message_retention_days, null, 'realm retention by default');
    t.ok(Math.abs(stream.date_created - Date.now() / 1000) < 60, 'date_created is now, in seconds');
  });

  t.test('POST /users/me/subscriptions: an existing channel is joined, and rejoining reports already_subscribed', async (t) => {
    const join = await w.as(othello)('POST', '/users/me/subscriptions', { params: { subscriptions: [{ name: 'verona' }] } });
    t.same(join.body.subscribed, { [othello.userId]: ['Verona'] }, 'matched without regard to case, under its own name');
    const again = await w.as(othello)('POST', '/users/me/subscriptions', { params: { subscriptions: [{ name: 'Verona' }, { name: 'general' }] } });
    t.same(again.body.subscribed, {}, 'nothing new');
    t.same(again.body.already_subscribed, { [othello.userId]: ['Verona', 'general'] }, 'both were subscribed already');
    t.equal((await get('Verona')).description, 'Italian city', 'joining does not change the channel');
  });

  t.test('POST /users/me/subscriptions: names are stripped and duplicates collapse', async (t) => {
    const res = await w.as(hamlet)('POST', '/users/me/subscriptions', { params: { subscriptions: [{ name: '  Padua  ' }, { name: 'padua' }] } });
    t.same(res.body.subscribed, { [hamlet.userId]: ['Padua'] }, 'one channel, stripped name');
  });

  t.test('POST /users/me/subscriptions: a private channel with its settings', async (t) => {
    const res = await w.as(hamlet)('POST', '/users/me/subscriptions', {
      params: { subscriptions: [{ name: 'council', description: 'line one\nline two' }], invite_only: true, history_public_to_subscribers: true },
    });
    t.equal(res.status, 200, 'status 200');
    const stream = await get('council');
    t.equal(stream.invite_only, true, 'private');
    t.equal(stream.history_public_to_subscribers, true, 'shared history as asked');
    t.equal(stream.description, 'line one line two', 'newlines become spaces, as in the reference');
    t.same(stream.can_administer_channel_group, { direct_members: [hamlet.userId], direct_subgroups: [] }, 'the creator administers it');
  });

  t.test('POST /users/me/subscriptions: a public channel always shares history', async (t) => {
    await w.as(hamlet)('POST', '/users/me/subscriptions', { params: { subscriptions: [{ name: 'open' }], history_public_to_subscribers: false } });
    t.equal((await get('open')).history_public_to_subscribers, true, 'history stays public');
  });

  t.test('POST /users/me/subscriptions: channel permission groups can be set at creation', async (t) => {
    const admins = (await get('general')).can_remove_subscribers_group;
    const res = await w.as(hamlet)('POST', '/users/me/subscriptions', {
      params: {
        subscriptions: [{ name: 'announcements' }],
        can_send_message_group: admins,
        can_subscribe_group: { direct_members: [othello.userId], direct_subgroups: [] },
        can_add_subscribers_group: { direct_members: [], direct_subgroups: [admins] },
      },
    });
    t.equal(res.status, 200, 'status 200');
    const stream = await get('announcements');
    t.equal(stream.can_send_message_group, admins, 'posting limited to administrators');
    t.equal(stream.stream_post_policy, 2, 'the legacy stream_post_policy follows');
    t.equal(stream.is_announcement_only, true, 'and so does is_announcement_only');
    t.same(stream.can_subscribe_group, { direct_members: [othello.userId], direct_subgroups: [] }, 'an anonymous group');
    t.equal(stream.can_add_subscribers_group, admins, 'a lone subgroup is that group');
  });

  t.test('POST /users/me/subscriptions: the owner may set message retention', async (t) => {
    await w.as(owner)('POST', '/users/me/subscriptions', { params: { subscriptions: [{ name: 'ephemeral' }], message_retention_days: 30 } });
    t.equal((await get('ephemeral')).message_retention_days, 30, '30 days');
    await w.as(owner)('POST', '/users/me/subscriptions', { params: { subscriptions: [{ name: 'forever' }], message_retention_days: 'unlimited' } });
    t.equal((await get('forever')).message_retention_days, -1, 'unlimited is -1');
    await w.as(owner)('POST', '/users/me/subscriptions', { params: { subscriptions: [{ name: 'usual' }], message_retention_days: '"realm_default"' } });
    t.equal((await get('usual')).message_retention_days, null, 'realm_default (JSON-encoded) is null');
  });

  t.test('POST /users/me/subscriptions: an administrator can make a default channel', async (t) => {
    await w.as(w.root.admin)('POST', '/users/me/subscriptions', { params: { subscriptions: [{ name: 'lobby' }], is_default_stream: true } });
    const res = await w.as(owner)('GET', '/streams', { params: { include_default: true } });
    t.equal(res.body.streams.find((s: { name: string }) => s.name === 'lobby').is_default, true, 'lobby is a default channel');
  });

  t.test('POST /users/me/subscriptions: multipart, as zulip-js sends it', async (t) => {
    const res = await w.as(othello)('POST', '/users/me/subscriptions', { params: { subscriptions: [{ name: 'multipart' }] }, encoding: 'multipart' });
    t.equal(res.status, 200, 'status 200');
    t.same(res.body.subscribed, { [othello.userId]: ['multipart'] }, 'subscribed');
  });

  t.test('POST /users/me/subscriptions: urlencoded, as the Python bindings send it', async (t) => {
    const res = await w.as(othello)('POST', '/users/me/subscriptions', { params: { subscriptions: JSON.stringify([{ name: 'urlencoded' }]), invite_only: 'false' }, encoding: 'form' });
    t.equal(res.status, 200, 'status 200');
    t.same(res.body.subscribed, { [othello.userId]: ['urlencoded'] }, 'subscribed');
  });

  t.test('POST /users/me/subscriptions: reports unknown parameters', async (t) => {
    const res = await w.as(othello)('POST', '/users/me/subscriptions', { params: { subscriptions: [{ name: 'general' }], bogus: 1 } });
    t.same(res.body.ignored_parameters_unsupported, ['bogus'], 'bogus is listed');
  });
});
