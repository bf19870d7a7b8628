import t from 'tap';
import { doCreateRealm } from '../../../src/api/realm/actions.js';
import { checkEvent } from '../../helpers/openapi.js';
import { createUser, startTestServer } from '../../helpers/server.js';
import { ROLE, startShard } from '../realm/harness.js';

t.test('linkifier changes send realm_linkifiers events', async (t) => {
  const h = await startShard(t);
  const member = await h.user(ROLE.member);
  const guest = await h.user(ROLE.guest);
  const bot = await h.user(ROLE.member, { isBot: true });
  const gone = await h.user(ROLE.member);
  h.realm.setUser({ ...gone, isActive: false });
  const everyone = [h.owner.id, member.id, guest.id, bot.id].sort((a, b) => a - b);
  const call = async (op: string, params: Record<string, unknown>) => {
    h.events.length = 0;
    const res = await h.call(op, h.owner, params);
    return { res, events: h.events.filter((e) => e.event.type === 'realm_linkifiers') };
  };
  const view = (id: number, pattern: string, url_template: string) => ({ id, pattern, url_template });

  t.test('adding: the whole list, to every active user', async (t) => {
    const { res, events } = await call('linkifiers.add', { pattern: '#(?P<id>[0-9]+)', url_template: 'https://github.com/zulip/zulip/issues/{id}' });
    t.equal(res.status, 200, 'added');
    t.equal(events.length, 1, 'one event');
    t.same(events[0].event, { type: 'realm_linkifiers', realm_linkifiers: [view(res.body.id, '#(?P<id>[0-9]+)', 'https://github.com/zulip/zulip/issues/{id}')] }, 'the reference shape');
    t.doesNotThrow(() => checkEvent(events[0].event), 'matches the reference event schema');
    t.same([...events[0].userIds].sort((a, b) => a - b), everyone, 'to active users, guests and bots included, not deactivated ones');
    t.equal(events[0].realmId, h.realm.id, 'for this realm');
  });

  t.test('editing, reordering and removing each send the new list', async (t) => {
    const first = h.realm.realm.linkifiers![0].id;
    const added = await call('linkifiers.add', { pattern: 'ZUL-(?P<id>[0-9]+)', url_template: 'https://z.example.com/{id}' });
    const second = added.res.body.id as number;
    t.same(added.events[0].event.realm_linkifiers, [
      view(first, '#(?P<id>[0-9]+)', 'https://github.com/zulip/zulip/issues/{id}'),
      view(second, 'ZUL-(?P<id>[0-9]+)', 'https://z.example.com/{id}'),
    ], 'the second appended');

    const edited = await call('linkifiers.update', { filter_id: second, pattern: 'ZUL2-(?P<id>[0-9]+)', url_template: 'https://z2.example.com/{id}' });
    t.same(edited.events[0].event.realm_linkifiers, [
      view(first, '#(?P<id>[0-9]+)', 'https://github.com/zulip/zulip/issues/{id}'),
      view(second, 'ZUL2-(?P<id>[0-9]+)', 'https://z2.example.com/{id}'),
    ], 'after an edit');
    t.doesNotThrow(() => checkEvent(edited.events[0].event), 'edit event matches the schema');

    const reordered = await call('linkifiers.reorder', { ordered_linkifier_ids: JSON.stringify([second, first]) });
    t.same((reordered.events[0].event.realm_linkifiers as { id: number }[]).map((l) => l.id), [second, first], 'after a reorder');
    t.doesNotThrow(() => checkEvent(reordered.events[0].event), 'reorder event matches the schema');

    const removed = await call('linkifiers.remove', { filter_id: second });
    t.same(removed.events[0].event, { type: 'realm_linkifiers', realm_linkifiers: [view(first, '#(?P<id>[0-9]+)', 'https://github.com/zulip/zulip/issues/{id}')] }, 'after a removal');
    t.same([...removed.events[0].userIds].sort((a, b) => a - b), everyone, 'to everyone');
  });

  t.test('refused requests send nothing', async (t) => {
    const first = h.realm.realm.linkifiers![0].id;
    for (const [op, params] of [
      ['linkifiers.add', { pattern: '(foo', url_template: 'https://x/' }],
      ['linkifiers.update', { filter_id: 99999, pattern: 'a', url_template: 'https://x/' }],
      ['linkifiers.remove', { filter_id: 99999 }],
      ['linkifiers.reorder', { ordered_linkifier_ids: JSON.stringify([first, first]) }],
    ] as const) {
      const { res, events } = await call(op, params);
      t.equal(res.status, 400, `${op}: refused`);
      t.equal(events.length, 0, `${op}: no event`);
    }
    h.events.length = 0;
    const byMember = await h.call('linkifiers.add', member, { pattern: 'M-(?P<id>[0-9]+)', url_template: 'https://m/{id}' });
    t.equal(byMember.status, 400, 'a member is refused');
    t.equal(h.events.length, 0, 'and nothing is sent');
  });

  t.test('another realm on the same shard is not told', async (t) => {
    await doCreateRealm(h.shard, { id: 2, subdomain: 'other', name: 'Other', ownerEmail: 'boss@other.example.com', ownerFullName: 'Boss' });
    const other = h.shard.realm(2)!;
    const { events } = await call('linkifiers.add', { pattern: 'O-(?P<id>[0-9]+)', url_template: 'https://o/{id}' });
    t.equal(events.length, 1, 'one event');
    t.equal(events[0].realmId, h.realm.id, 'for this realm only');
    t.notOk(events[0].userIds.some((id) => other.users.has(id)), 'no user of the other realm');
    t.same(other.realm.linkifiers ?? [], [], 'the other realm has no linkifiers');
  });
});

t.test('realm_linkifiers reaches a registered event queue', async (t) => {
  const ts = await startTestServer(t);
  const ann = await createUser(ts, 'ann@example.com', 'Ann');
  const reg = await ts.as(ann)('POST', '/register', { params: { event_types: ['realm_linkifiers'], client_capabilities: { linkifier_url_template: true } } });
  t.equal(reg.status, 200, 'registered');
  const added = await ts.request('POST', '/realm/filters', { params: { pattern: '#(?P<id>[0-9]+)', url_template: 'https://github.com/zulip/zulip/issues/{id}' } });
  const got = await ts.as(ann)('GET', '/events', { params: { queue_id: reg.body.queue_id, last_event_id: -1, dont_block: true } });
  t.equal(got.status, 200, 'GET /events answers');
  const events = got.body.events.filter((e: { type: string }) => e.type === 'realm_linkifiers');
  t.equal(events.length, 1, 'one realm_linkifiers event');
  t.same(events[0]?.realm_linkifiers, [{ id: added.body.id, pattern: '#(?P<id>[0-9]+)', url_template: 'https://github.com/zulip/zulip/issues/{id}' }], 'with the list');
});
