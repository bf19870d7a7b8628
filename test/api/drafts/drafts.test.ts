import t from 'tap';
import { startWorld } from '../streams/world.js';

/** GET, POST /drafts; PATCH, DELETE /drafts/{id}: shapes, every error of the reference, ownership. */

t.test('drafts', async (t) => {
  const w = await startWorld(t);
  const { hamlet, othello, polonius, owner, bot } = w.root;
  const as = w.as(hamlet);
  const general = (await as('GET', '/get_stream_id', { params: { stream: 'general' } })).body.stream_id as number;
  const create = (drafts: unknown, who = hamlet) => w.as(who)('POST', '/drafts', { params: { drafts } });
  const list = async (who = hamlet) => (await w.as(who)('GET', '/drafts')).body;

  t.test('POST /drafts creates a list, in order, and GET /drafts returns them by edit time', async (t) => {
    const res = await create([
      { type: 'stream', to: [general], topic: 'sync drafts', content: "Let's add backend support for syncing drafts.", timestamp: 1595479019 },
      { type: 'private', to: [othello.userId], topic: 'ignored', content: 'What if we made it possible to sync drafts?', timestamp: 1595479018 },
      { type: 'private', to: [othello.userId, owner.userId, hamlet.userId], topic: '', content: 'group', timestamp: 1595479020 },
      { type: 'private', to: [], topic: 'x', content: 'to nobody', timestamp: 1595479021 },
      { type: '', to: [general], topic: 'x', content: 'unaddressed  \n' },
    ]);
    t.equal(res.status, 200, 'created');
    t.equal(res.body.ids.length, 5, 'one id per draft');
    const [a, b, c, d, e] = res.body.ids;
    const body = await list();
    t.equal(body.count, 5, 'count');
    const byId = Object.fromEntries(body.drafts.map((x: { id: number }) => [x.id, x]));
    t.same(byId[a], { id: a, type: 'stream', to: [general], topic: 'sync drafts', content: "Let's add backend support for syncing drafts.", timestamp: 1595479019 }, 'a channel draft as sent');
    t.same(byId[b], { id: b, type: 'private', to: [othello.userId], topic: '', content: 'What if we made it possible to sync drafts?', timestamp: 1595479018 }, 'a direct draft: topic dropped');
    t.same(byId[c].to, [owner.userId, othello.userId].sort((x, y) => x - y), 'a group draft lists the others, ascending, without the author');
    t.same([byId[d].type, byId[d].to, byId[d].topic], ['', [], ''], 'a direct draft to nobody is unaddressed');
    t.same([byId[e].type, byId[e].to, byId[e].topic, byId[e].content], ['', [], '', 'unaddressed'], 'unaddressed: no recipient, no topic, trailing space dropped');
    const now = Math.floor(Date.now() / 1000);
    t.ok(Math.abs(byId[e].timestamp - now) <= 5, 'a missing timestamp is filled in with now');
    t.same(body.drafts.map((x: { id: number }) => x.id), [b, a, c, d, e], 'oldest edit first');
  });

  t.test('a draft to oneself keeps the author as its recipient', async (t) => {
    const res = await create([{ type: 'private', to: [hamlet.userId], topic: '', content: 'note to self', timestamp: 100 }]);
    const draft = (await list()).drafts.find((x: { id: number }) => x.id === res.body.ids[0]);
    t.same(draft.to, [hamlet.userId], 'to: [me]');
  });

  t.test('POST /drafts: the reference errors, and a bad draft creates none', async (t) => {
    const before = (await list()).count;
    const cases: [unknown, string][] = [
      [[{ type: 'stream', to: [], topic: 't', content: 'c' }], 'Must specify exactly 1 channel ID for channel messages'],
      [[{ type: 'stream', to: [general, general], topic: 't', content: 'c' }], 'Must specify exactly 1 channel ID for channel messages'],
      [[{ type: 'stream', to: [99999], topic: 't', content: 'c' }], 'Invalid channel ID'],
      [[{ type: 'private', to: [99999], topic: '', content: 'c' }], 'Invalid user ID 99999'],
      [[{ type: '', to: [], topic: '', content: 'Some regular \u0000 content here' }], 'Message must not contain null bytes'],
      [[{ type: 'stream', to: [general], topic: 'thinking about \u0000', content: 'c' }], 'Topic must not contain null bytes'],
      [[{ type: 'stream', to: [general], topic: 't', content: 'c', timestamp: -10.1 }], 'Timestamp must not be negative.'],
      [[{ type: '', to: [], topic: '', content: '   ' }], 'Message must not be empty'],
      [[{ type: '', to: [], topic: '', content: '' }], 'drafts[0]["content"] cannot be blank'],
      [[{ type: 'channel', to: [], topic: '', content: 'c' }], 'Invalid drafts[0]["type"]'],
      [[{ to: [], topic: '', content: 'c' }], 'drafts[0]["type"] field is missing'],
      [[{ type: '', to: 5, topic: '', content: 'c' }], 'drafts[0]["to"] is not a list'],
      [[{ type: '', to: ['x'], topic: '', content: 'c' }], 'drafts[0]["to"][0] is not an integer'],
      [[{ type: '', to: [], topic: 5, content: 'c' }], 'drafts[0]["topic"] is not a string'],
      [[{ id: 3, type: '', to: [], topic: '', content: 'c' }], 'Argument "id" at drafts[0]["id"] is unexpected'],
      [['x'], 'drafts[0] is not a dict'],
      [[{ type: '', to: [], topic: '', content: 'fine' }, { type: 'stream', to: [], topic: '', content: 'c' }], 'Must specify exactly 1 channel ID for channel messages'],
    ];
    for (const [drafts, msg] of cases) {
      const res = await create(drafts);
      t.same([res.status, res.body.code, res.body.msg], [400, 'BAD_REQUEST', msg], msg);
    }
    let res = await w.as(hamlet)('POST', '/drafts', { params: { drafts: 'not json' } });
    t.equal(res.body.code, 'INVALID_JSON', 'drafts must be JSON');
    res = await w.as(hamlet)('POST', '/drafts', { params: {} });
    t.equal(res.body.code, 'REQUEST_VARIABLE_MISSING', 'drafts is required');
    t.equal((await list()).count, before, 'no draft was made by any failed request');
  });

  t.test('channel drafts need access to the channel; deactivated users are refused', async (t) => {
    const secret = await w.as(owner)('POST', '/users/me/subscriptions', { params: { subscriptions: [{ name: 'secret' }], invite_only: true } });
    t.equal(secret.status, 200, 'a private channel');
    const secretId = (await w.as(owner)('GET', '/get_stream_id', { params: { stream: 'secret' } })).body.stream_id;
    let res = await create([{ type: 'stream', to: [secretId], topic: 't', content: 'c' }]);
    t.equal(res.body.msg, 'Invalid channel ID', 'a member who cannot read the private channel');
    res = await create([{ type: 'stream', to: [secretId], topic: 't', content: 'c' }], owner);
    t.equal(res.status, 200, 'its subscriber can');
    const pub = await w.as(owner)('POST', '/users/me/subscriptions', { params: { subscriptions: [{ name: 'public-only-owner' }] } });
    t.equal(pub.status, 200, 'a public channel polonius is not in');
    const pubId = (await w.as(owner)('GET', '/get_stream_id', { params: { stream: 'public-only-owner' } })).body.stream_id;
    res = await create([{ type: 'stream', to: [pubId], topic: 't', content: 'c' }], polonius);
    t.equal(res.body.msg, 'Invalid channel ID', 'a guest only drafts to their channels');
    res = await create([{ type: 'stream', to: [pubId], topic: 't', content: 'c' }], othello);
    t.equal(res.status, 200, 'a member drafts to any public channel');
    res = await create([{ type: 'stream', to: [general], topic: 't', content: 'c' }], bot);
    t.equal(res.status, 200, 'bots keep drafts too');
    const dead = await w.as(owner)('POST', '/users', { params: { email: 'gone@example.com', password: 'a-long-password-1', full_name: 'Gone' } });
    await w.as(owner)('DELETE', `/users/${dead.body.user_id}`);
    res = await create([{ type: 'private', to: [dead.body.user_id], topic: '', content: 'c' }]);
    t.equal(res.body.msg, "'gone@example.com' is no longer using Zulip.", 'a deactivated recipient');
  });

  t.test('PATCH /drafts/{id} replaces a draft; DELETE removes it; both only for its owner', async (t) => {
    const id = (await create([{ type: 'stream', to: [general], topic: 'drafts', content: 'The API should be good', timestamp: 1595505700 }])).body.ids[0];
    const edited = { type: 'private', to: [othello.userId], topic: 'ignored', content: 'The API needs to be simple.', timestamp: 1595505800 };
    let res = await w.as(othello)('PATCH', `/drafts/${id}`, { params: { draft: edited } });
    t.same([res.status, res.body.msg, res.body.code], [404, 'Draft does not exist', 'BAD_REQUEST'], "another user's draft does not exist for them");
    res = await as('PATCH', `/drafts/${id}`, { params: { draft: edited } });
    t.equal(res.status, 200, 'edited');
    let draft = (await list()).drafts.find((x: { id: number }) => x.id === id);
    t.same(draft, { id, type: 'private', to: [othello.userId], topic: '', content: 'The API needs to be simple.', timestamp: 1595505800 }, 'replaced whole');
    res = await as('PATCH', `/drafts/${id}`, { params: { draft: { type: 'stream', to: [], topic: 'x', content: 'y' } } });
    t.equal(res.body.msg, 'Must specify exactly 1 channel ID for channel messages', 'the same checks as creating');
    res = await as('PATCH', `/drafts/${id}`, { params: { draft: { type: '', to: [], topic: '', content: 'y', id } } });
    t.equal(res.body.msg, `Argument "id" at draft["id"] is unexpected`, 'no id in an edit');
    draft = (await list()).drafts.find((x: { id: number }) => x.id === id);
    t.equal(draft.content, 'The API needs to be simple.', 'failed edits changed nothing');
    res = await as('PATCH', '/drafts/999999', { params: { draft: edited } });
    t.same([res.status, res.body.msg], [404, 'Draft does not exist'], 'an unknown id');
    res = await w.as(othello)('DELETE', `/drafts/${id}`);
    t.same([res.status, res.body.msg], [404, 'Draft does not exist'], 'others cannot delete it');
    res = await as('DELETE', `/drafts/${id}`);
    t.equal(res.status, 200, 'deleted');
    res = await as('DELETE', `/drafts/${id}`);
    t.same([res.status, res.body.msg], [404, 'Draft does not exist'], 'gone');
  });

  t.test("drafts are private: other users and other realms never see them", async (t) => {
    await create([{ type: '', to: [], topic: '', content: 'hamlet secret' }]);
    for (const who of [othello, owner, polonius]) {
      const body = await list(who);
      t.notOk(body.drafts.some((x: { content: string }) => x.content === 'hamlet secret'), `${who.email} does not see it`);
      const reg = await w.as(who)('POST', '/register', { params: { fetch_event_types: ['drafts'] } });
      t.notOk(reg.body.drafts.some((x: { content: string }) => x.content === 'hamlet secret'), `${who.email}'s /register does not hold it`);
    }
    const other = await w.asOther(w.other.hamlet)('GET', '/drafts');
    t.same(other.body.drafts, [], "the other realm's hamlet has none");
  });
});
