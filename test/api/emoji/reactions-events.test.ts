import t from 'tap';
import { convergenceHarness } from '../../helpers/convergence.js';
import { createUser, startTestServer } from '../../helpers/server.js';
import { fetchRaw } from '../../helpers/upload.js';
import { addRealm, restart } from '../users/restart.js';
import { png, uploadEmoji } from './fixtures.js';

t.test('custom emoji: reactions, events, realms', async (t) => {
  const ts = await startTestServer(t);
  const ann = await createUser(ts, 'ann@example.com', 'Ann');
  const bob = await createUser(ts, 'bob@example.com', 'Bob');
  const asAnn = ts.as(ann);
  const asBob = ts.as(bob);
  const { converges } = convergenceHarness(t, ts);
  const viewers = [ann, bob, { ...ts.owner, userId: ts.owner.userId }];

  await converges('realm_emoji update: an emoji is added', () => uploadEmoji(ts, 'party_parrot', [png()], { auth: ann }), viewers);
  const list = async () => (await asAnn('GET', '/realm/emoji')).body.emoji as Record<string, { id: string; name: string; deactivated: boolean }>;
  const parrot = Object.values(await list()).find((e) => e.name === 'party_parrot')!;

  t.test('the update event carries the whole list, to every user of the realm', async (t) => {
    const reg = await asBob('POST', '/register', { params: { event_types: JSON.stringify(['realm_emoji']) } });
    await uploadEmoji(ts, 'desert_plant', [png()], { auth: ann });
    const got = await asBob('GET', '/events', { params: { queue_id: reg.body.queue_id, last_event_id: -1, dont_block: true } });
    const events = got.body.events.filter((e: { type: string }) => e.type === 'realm_emoji');
    t.equal(events.length, 1, 'one event');
    t.same(events[0].realm_emoji, await list(), 'realm_emoji: the list as GET /realm/emoji gives it');
    t.equal(events[0].op, 'update', 'op update');
  });

  const sent = await asAnn('POST', '/messages', { params: { type: 'stream', to: 'general', topic: 'react', content: 'react to me' } });
  const msgId = sent.body.id as number;
  const reactions = async () => (await asAnn('GET', `/messages/${msgId}`)).body.message.reactions as { emoji_name: string; emoji_code: string; reaction_type: string; user_id: number }[];

  t.test('reactions with reaction_type realm_emoji', async (t) => {
    let res = await asBob('POST', `/messages/${msgId}/reactions`, { params: { emoji_name: 'party_parrot' } });
    t.equal(res.status, 200, 'by name alone: the custom emoji');
    t.same((await reactions()).map((r) => [r.emoji_name, r.emoji_code, r.reaction_type]), [['party_parrot', parrot.id, 'realm_emoji']], 'code is its id, type realm_emoji');
    res = await asAnn('POST', `/messages/${msgId}/reactions`, { params: { emoji_name: 'party_parrot', emoji_code: parrot.id, reaction_type: 'realm_emoji' } });
    t.equal(res.status, 200, 'by name, code and type');
    res = await asAnn('POST', `/messages/${msgId}/reactions`, { params: { emoji_name: 'desert_plant', emoji_code: parrot.id, reaction_type: 'realm_emoji' } });
    t.same(res.body.msg, 'Reaction already exists.', 'the same code again is the same reaction');
    res = await asBob('POST', `/messages/${msgId}/reactions`, { params: { emoji_name: 'desert_plant', emoji_code: '999', reaction_type: 'realm_emoji' } });
    t.same(res.body.msg, 'Invalid custom emoji.', 'an unknown id');
    const plant = Object.values(await list()).find((e) => e.name === 'desert_plant')!;
    res = await asBob('POST', `/messages/${msgId}/reactions`, { params: { emoji_name: 'party_parrot', emoji_code: plant.id, reaction_type: 'realm_emoji' } });
    t.same(res.body.msg, 'Invalid custom emoji name.', 'a name that is not the emoji\'s');
    await ts.as(ann)('DELETE', '/realm/emoji/desert_plant');
    res = await asBob('POST', `/messages/${msgId}/reactions`, { params: { emoji_name: 'desert_plant', emoji_code: plant.id, reaction_type: 'realm_emoji' } });
    t.same(res.body.msg, 'This custom emoji has been deactivated.', 'a deactivated emoji');
    res = await asBob('POST', `/messages/${msgId}/reactions`, { params: { emoji_name: 'desert_plant' } });
    t.same(res.body.msg, "Emoji 'desert_plant' does not exist", 'nor by name');
    res = await asBob('DELETE', `/messages/${msgId}/reactions`, { params: { emoji_name: 'party_parrot' } });
    t.equal(res.status, 200, 'removed by name alone');
    t.same((await reactions()).map((r) => r.user_id), [ann.userId], 'Ann\'s vote stays');
  });

  await converges('reaction events for a custom emoji', () => asBob('POST', `/messages/${msgId}/reactions`, { params: { emoji_name: 'party_parrot' } }), viewers);

  t.test('a vote for a reaction whose emoji was deactivated still counts, under its name', async (t) => {
    await ts.as(ann)('DELETE', '/realm/emoji/party_parrot');
    const res = await ts.request('POST', `/messages/${msgId}/reactions`, { params: { emoji_name: 'party_parrot', emoji_code: parrot.id, reaction_type: 'realm_emoji' } });
    t.equal(res.status, 200, 'the owner votes for :party_parrot:');
    t.equal((await reactions()).length, 3, 'three votes');
  });

  await uploadEmoji(ts, 'bobcat', [png()], { auth: bob });
  await converges('realm_emoji update: an emoji is deactivated', () => asBob('DELETE', '/realm/emoji/bobcat'), viewers);

  t.test('realms: emoji, images and events stay in their realm', async (t) => {
    const source = (Object.values(await list()).find((e) => e.name === 'party_parrot') as unknown as { source_url: string }).source_url;
    const other = await restart(t, ts, addRealm('other', 'boss@other.example'));
    const host = `other.${ts.server.config.externalHost}`;
    const boss = { email: other.owner.email, apiKey: other.owner.apiKey };
    const theirs = await ts.as(boss)('GET', '/realm/emoji', { host });
    t.same(theirs.body.emoji, {}, 'the other realm has no custom emoji');
    t.equal((await fetchRaw(ts, source, { host })).status, 404, 'the first realm\'s image is not served at the other realm\'s host');
    t.equal((await fetchRaw(ts, source)).status, 200, 'and still is at its own');
    const reg = await ts.as(boss)('POST', '/register', { host, params: { event_types: JSON.stringify(['realm_emoji']) } });
    const res = await uploadEmoji(ts, 'party_parrot', [png()], { auth: boss, host });
    t.equal(res.status, 200, 'the other realm adds its own :party_parrot:');
    const render = await asAnn('POST', '/messages/render', { params: { content: ':party_parrot:' } });
    t.equal(render.body.rendered, '<p>:party_parrot:</p>', 'the first realm\'s deactivated :party_parrot: stays text, whatever the other realm has');
    const got = await ts.as(boss)('GET', '/events', { host, params: { queue_id: reg.body.queue_id, last_event_id: -1, dont_block: true } });
    const names = got.body.events.filter((e: { type: string }) => e.type === 'realm_emoji').flatMap((e: { realm_emoji: Record<string, { name: string }> }) => Object.values(e.realm_emoji).map((x) => x.name));
    t.same(names, ['party_parrot'], 'its event lists its own emoji only');
  });
});
