import t from 'tap';
import { startWorld, subscribe } from './world.js';

const names = (res: { body: { streams: { name: string }[] } }) => res.body.streams.map((s) => s.name);

t.test('GET /streams', async (t) => {
  const w = await startWorld(t, { settings: { enable_spectator_access: true } });
  const { owner, admin, hamlet, othello, polonius, bot } = w.root;
  await subscribe(w.as(hamlet), ['Verona', 'Denmark']);
  await subscribe(w.as(hamlet), ['secret'], { invite_only: true, principals: [hamlet.userId, bot.userId] });
  await subscribe(w.as(owner), ['website'], { is_web_public: true });
  await subscribe(w.asOther(w.other.hamlet), ['elsewhere']);
  await subscribe(w.asOther(w.other.hamlet), ['elsewhere-private'], { invite_only: true });

  t.test('GET /streams: lists public and subscribed channels by name, in the reference shape', async (t) => {
    const res = await w.as(hamlet)('GET', '/streams');
    t.equal(res.status, 200, 'status 200');
    t.same(names(res), ['Denmark', 'Verona', 'general', 'secret', 'website'], 'public channels and the private one hamlet is in, in code point order as the reference sorts');
    const verona = res.body.streams.find((s: { name: string }) => s.name === 'Verona');
    t.equal(verona.creator_id, hamlet.userId, 'creator_id is the creator');
    t.equal(verona.invite_only, false, 'public');
    t.equal(verona.first_message_id, null, 'no messages yet');
    t.equal(verona.stream_weekly_traffic, null, 'no traffic data yet');
    t.equal(verona.is_announcement_only, false, 'deprecated is_announcement_only is false');
    t.equal(verona.stream_post_policy, 1, 'anyone can post');
    t.notOk('is_default' in verona, 'is_default only with include_default');
  });

  t.test('GET /streams: another member does not see a private channel they are not in', async (t) => {
    const res = await w.as(othello)('GET', '/streams');
    t.notOk(names(res).includes('secret'), 'secret is hidden from othello');
    const all = await w.as(othello)('GET', '/streams', { params: { include_all: true } });
    t.notOk(names(all).includes('secret'), 'include_all does not reveal it either');
    const content = await w.as(othello)('GET', '/streams', { params: { include_can_access_content: true } });
    t.notOk(names(content).includes('secret'), 'nor include_can_access_content');
    const web = await w.as(othello)('GET', '/streams', { params: { include_web_public: true } });
    t.notOk(names(web).includes('secret'), 'nor include_web_public');
  });

  t.test('GET /streams: never lists another realm\'s channels', async (t) => {
    for (const who of [owner, hamlet, othello]) {
      const res = await w.as(who)('GET', '/streams', { params: { include_all: true, include_web_public: true } });
      t.notOk(names(res).some((n) => n.startsWith('elsewhere')), `${who.email} sees no channel of realm other`);
    }
    const theirs = await w.asOther(w.other.owner)('GET', '/streams', { params: { include_all: true } });
    t.same(names(theirs), ['elsewhere', 'elsewhere-private', 'general'], 'realm other lists only its own channels');
  });

  t.test('GET /streams: include_public=false and include_subscribed=false narrow the sources', async (t) => {
    const subscribed = await w.as(hamlet)('GET', '/streams', { params: { include_public: false } });
    t.same(names(subscribed), ['Denmark', 'Verona', 'general', 'secret'], 'only the subscribed channels');
    const publicOnly = await w.as(othello)('GET', '/streams', { params: { include_subscribed: false } });
    t.same(names(publicOnly), ['Denmark', 'Verona', 'general', 'website'], 'only the public channels');
    const none = await w.as(hamlet)('GET', '/streams', { params: { include_public: false, include_subscribed: false } });
    t.same(none.body.streams, [], 'no source, no channels');
  });

  t.test('GET /streams: include_all gives administrators every channel, private ones included', async (t) => {
    const res = await w.as(admin)('GET', '/streams', { params: { include_all: true } });
    t.ok(names(res).includes('secret'), 'an administrator has metadata access to secret');
    const plain = await w.as(admin)('GET', '/streams');
    t.notOk(names(plain).includes('secret'), 'but the default sources do not include it');
  });

  t.test('GET /streams: include_all_active is for administrators only', async (t) => {
    const denied = await w.as(hamlet)('GET', '/streams', { params: { include_all_active: true } });
    t.equal(denied.status, 400, 'status 400 for a member');
    t.same(denied.body, { result: 'error', msg: 'User not authorized for this query', code: 'BAD_REQUEST' }, 'the reference error');
    const allowed = await w.as(owner)('GET', '/streams', { params: { include_all_active: true } });
    t.equal(allowed.status, 200, 'an owner may use it');
    t.ok(names(allowed).includes('secret'), 'and gets every channel');
  });

  t.test('GET /streams: include_default marks the realm default channels', async (t) => {
    const res = await w.as(hamlet)('GET', '/streams', { params: { include_default: true } });
    for (const s of res.body.streams) t.equal(s.is_default, s.name === 'general', `${s.name}: is_default ${s.name === 'general'}`);
  });

  t.test('GET /streams: a guest sees only subscribed and (on request) web-public channels', async (t) => {
    const res = await w.as(polonius)('GET', '/streams');
    t.same(names(res), ['general'], 'public channels are not listed for guests');
    const web = await w.as(polonius)('GET', '/streams', { params: { include_web_public: true } });
    t.same(names(web), ['general', 'website'], 'web-public channels on request');
    const content = await w.as(polonius)('GET', '/streams', { params: { include_can_access_content: true } });
    t.same(names(content), ['general', 'website'], 'content access: subscribed and web-public');
  });

  t.test('GET /streams: include_can_access_content gives a member public and own channels', async (t) => {
    const res = await w.as(othello)('GET', '/streams', { params: { include_can_access_content: true, include_public: false, include_subscribed: false } });
    t.same(names(res), ['Denmark', 'Verona', 'general', 'website'], 'public channels, not the private one');
  });

  t.test("GET /streams: include_owner_subscribed adds a bot's owner's channels", async (t) => {
    await subscribe(w.as(hamlet), ['hamlet-only'], { invite_only: true });
    const without = await w.as(bot)('GET', '/streams', { params: { include_public: false } });
    t.notOk(names(without).includes('hamlet-only'), 'not without the parameter');
    const res = await w.as(bot)('GET', '/streams', { params: { include_public: false, include_owner_subscribed: true } });
    t.ok(names(res).includes('hamlet-only'), "the owner's private channel is included");
    const human = await w.as(othello)('GET', '/streams', { params: { include_owner_subscribed: true } });
    t.notOk(names(human).includes('hamlet-only'), 'the parameter means nothing for a human');
  });

  t.test('GET /streams: rejects a non-boolean flag', async (t) => {
    const res = await w.as(hamlet)('GET', '/streams', { params: { include_public: 'maybe' } });
    t.equal(res.status, 400, 'status 400');
    t.equal(res.body.code, 'REQUEST_VARIABLE_INVALID', 'invalid variable');
    t.equal(res.body.var_name, 'include_public', 'names the parameter');
  });

  t.test('GET /streams: requires authentication', async (t) => {
    const res = await w.ts.request('GET', '/streams', { auth: null });
    t.equal(res.status, 401, 'status 401');
  });
});
