import t from 'tap';
import { checkEvent } from '../../helpers/openapi.js';
import { startTestServer } from '../../helpers/server.js';
import { startWorld, subscribe } from '../streams/world.js';

type Sub = { id: number; message_id: number; sender_id: number; msg_type: string; content: string };

/**
 * POST /submessage: votes, options and to-do items arrive as submessages from everyone who can
 * see the widget's message, and reach every client as `submessage` events; a client that
 * applies them to the message it fetched has what a fresh fetch shows, before and after a
 * restart. Errors are the reference's (zerver/tests/test_widgets.py, test_submessage.py).
 */
t.test('POST /submessage', async (t) => {
  const w = await startWorld(t);
  const { owner, hamlet, othello, polonius } = w.root;
  const asHamlet = w.as(hamlet);
  const post = (who: typeof hamlet, messageId: number, data: unknown, msgType = 'widget') =>
    w.as(who)('POST', '/submessage', { params: { message_id: messageId, msg_type: msgType, content: typeof data === 'string' ? data : JSON.stringify(data) } });
  const fetchSubs = async (who: typeof hamlet, id: number): Promise<Sub[]> => (await w.as(who)('GET', `/messages/${id}`)).body.message.submessages;
  const send = async (who: typeof hamlet, content: string, to = 'general') => (await w.as(who)('POST', '/messages', { params: { type: 'stream', to, topic: 'widgets', content } })).body.id as number;

  const poll = await send(hamlet, '/poll Tabs or spaces?\nTabs\nSpaces');

  t.test('two users vote and one adds an option: every client converges through events', async (t) => {
    const clients = [hamlet, othello, owner];
    const states = new Map<number, { queue: string; last: number; subs: Sub[] }>();
    for (const c of clients) {
      const reg = (await w.as(c)('POST', '/register', { params: { event_types: ['submessage'] } })).body;
      states.set(c.userId, { queue: reg.queue_id, last: reg.last_event_id, subs: await fetchSubs(c, poll) });
    }
    t.equal((await post(othello, poll, { type: 'vote', key: 'canned,0', vote: 1 })).status, 200, 'othello votes for Tabs');
    t.equal((await post(owner, poll, { type: 'new_option', idx: 1, option: 'Both' })).status, 200, 'the owner adds an option');
    t.equal((await post(hamlet, poll, { type: 'vote', key: `${owner.userId},1`, vote: 1 })).status, 200, 'hamlet votes for it');
    t.equal((await post(othello, poll, { type: 'vote', key: 'canned,0', vote: -1 })).status, 200, 'othello takes his vote back');
    for (const c of clients) {
      const state = states.get(c.userId)!;
      const res = await w.as(c)('GET', '/events', { params: { queue_id: state.queue, last_event_id: state.last, dont_block: true } });
      const events = res.body.events.filter((e: { type: string }) => e.type === 'submessage');
      t.equal(events.length, 4, `user ${c.userId} heard of every submessage`);
      for (const e of events) {
        t.doesNotThrow(() => checkEvent(e), 'the event matches the reference schema');
        state.subs.push({ id: e.submessage_id, message_id: e.message_id, sender_id: e.sender_id, msg_type: e.msg_type, content: e.content });
      }
      t.same(state.subs, await fetchSubs(c, poll), `user ${c.userId}: the fetched message plus the events is a fresh fetch`);
    }
    const last = (await fetchSubs(hamlet, poll)).at(-1)!;
    t.same([last.sender_id, JSON.parse(last.content)], [othello.userId, { type: 'vote', key: 'canned,0', vote: -1 }], 'stored as sent, in order');
  });

  t.test('a to-do item is checked and unchecked', async (t) => {
    const todo = await send(hamlet, '/todo Chores\nDishes: tonight\nLaundry');
    t.equal((await post(othello, todo, { type: 'strike', key: `0,canned` })).status, 200, 'checked');
    t.equal((await post(hamlet, todo, { type: 'strike', key: `0,canned` })).status, 200, 'unchecked');
    t.equal((await post(othello, todo, { type: 'new_task', key: 2, task: 'Bins', desc: '', completed: false })).status, 200, 'a new task');
    t.equal((await post(hamlet, todo, { type: 'new_task_list_title', title: 'House chores' })).status, 200, 'the author renames the list');
    const subs = await fetchSubs(othello, todo);
    t.same(subs.map((s) => JSON.parse(s.content).type ?? JSON.parse(s.content).widget_type), ['todo', 'strike', 'strike', 'new_task', 'new_task_list_title'], 'the widget and its changes, in order');
  });

  t.test('the author alone edits the question or the title', async (t) => {
    t.same((await post(othello, poll, { type: 'question', question: 'Vim or Emacs?' })).body.msg, "You can't edit a question unless you are the author.", 'poll question');
    t.equal((await post(hamlet, poll, { type: 'question', question: 'Tabs or spaces, really?' })).status, 200, 'the author may');
    const todo = await send(hamlet, '/todo School Work');
    t.same((await post(othello, todo, { type: 'new_task_list_title', title: 'x' })).body.msg, "You can't edit the task list title unless you are the author.", 'task list title');
  });

  t.test('poll data is checked for its shape, as the reference checks it', async (t) => {
    const before = (await fetchSubs(hamlet, poll)).length;
    const cases: [unknown, string][] = [
      ['bogus', 'Invalid json for submessage'],
      ['""', 'poll data is not a dict'],
      ['[]', 'poll data is not a dict'],
      [{ type: 'bogus' }, 'Unknown type for poll data: bogus'],
      [{ type: 'vote' }, 'key key is missing from poll data'],
      [{ type: 'vote', key: '1,1,', vote: 99 }, 'Invalid poll data["vote"]'],
      [{ type: 'question' }, 'question key is missing from poll data'],
      [{ type: 'question', question: 7 }, 'poll data["question"] is not a string'],
      [{ type: 'new_option' }, 'option key is missing from poll data'],
      [{ type: 'new_option', idx: 7, option: 999 }, 'poll data["option"] is not a string'],
      [{ type: 'new_option', idx: -1, option: 'pizza' }, 'poll data["idx"] is too small'],
      [{ type: 'new_option', idx: 1001, option: 'pizza' }, 'poll data["idx"] is too large'],
      [{ type: 'new_option', idx: 'bogus', option: 'maybe' }, 'poll data["idx"] is not an integer'],
      [{ type: 'vote', key: '1,1', vote: 1, extra: true }, 'Unexpected arguments: extra'],
    ];
    for (const [data, msg] of cases) {
      const res = await post(hamlet, poll, data);
      t.same(res.body, { result: 'error', msg, code: 'BAD_REQUEST' }, msg);
    }
    t.equal((await fetchSubs(hamlet, poll)).length, before, 'nothing was added');
  });

  t.test('to-do data is checked for its shape', async (t) => {
    const todo = await send(hamlet, '/todo');
    const cases: [unknown, string][] = [
      [{ type: 'bogus' }, 'Unknown type for todo data: bogus'],
      [{ type: 'new_task' }, 'key key is missing from todo data'],
      [{ type: 'new_task', key: 7, task: 7, desc: '', completed: false }, 'todo data["task"] is not a string'],
      [{ type: 'new_task', key: -1, task: 'eat', desc: '', completed: false }, 'todo data["key"] is too small'],
      [{ type: 'new_task', key: 1001, task: 'eat', desc: '', completed: false }, 'todo data["key"] is too large'],
      [{ type: 'new_task', key: 1, task: 'eat', desc: '', completed: 'no' }, 'todo data["completed"] is not a boolean'],
      [{ type: 'strike' }, 'key key is missing from todo data'],
      [{ type: 'strike', key: 999 }, 'todo data["key"] is not a string'],
    ];
    for (const [data, msg] of cases) t.same((await post(hamlet, todo, data)).body.msg, msg, msg);
  });

  t.test('only messages the user can see', async (t) => {
    await subscribe(asHamlet, ['secret plans'], { invite_only: true });
    const secret = await send(hamlet, '/poll Which plan?', 'secret plans');
    const res = await post(othello, secret, { type: 'vote', key: 'canned,0', vote: 1 });
    t.same(res.body, { result: 'error', msg: 'Invalid message(s)', code: 'BAD_REQUEST' }, 'a private channel othello is not in');
    const dm = (await asHamlet('POST', '/messages', { params: { type: 'direct', to: [owner.userId], content: '/poll Lunch?' } })).body.id;
    t.same((await post(othello, dm, { type: 'vote', key: 'canned,0', vote: 1 })).body.msg, 'Invalid message(s)', 'a direct message between others');
    t.equal((await post(owner, dm, { type: 'vote', key: 'canned,0', vote: 1 })).status, 200, 'a participant may vote');
    t.same((await post(othello, 999_999, { type: 'vote', key: 'canned,0', vote: 1 })).body.msg, 'Invalid message(s)', 'a message that does not exist');
    const other = await w.asOther(w.other.hamlet)('POST', '/submessage', { params: { message_id: poll, msg_type: 'widget', content: JSON.stringify({ type: 'vote', key: 'canned,0', vote: 1 }) } });
    t.same(other.body.msg, 'Invalid message(s)', 'nor from another realm');
    t.equal((await post(polonius, poll, { type: 'vote', key: 'canned,0', vote: 1 })).status, 200, 'a guest in the channel may vote');
  });

  t.test('the sender attaches the first submessage of an ordinary message', async (t) => {
    const plain = await send(hamlet, 'just text');
    t.same((await post(othello, plain, { anything: 1 }, 'custom')).body.msg, 'You cannot attach a submessage to this message.', 'not somebody else');
    t.equal((await post(hamlet, plain, { anything: 1 }, 'custom')).status, 200, 'the sender may, with any type (not checked)');
    t.equal((await post(othello, plain, { more: 2 }, 'custom')).status, 200, 'then others may too');
  });

  t.test('missing and over-long parameters', async (t) => {
    const missing = await asHamlet('POST', '/submessage', { params: { message_id: poll, msg_type: 'widget' } });
    t.same(missing.body, { result: 'error', msg: "Missing 'content' argument", code: 'REQUEST_VARIABLE_MISSING', var_name: 'content' }, 'content is required');
    const long = await post(hamlet, poll, JSON.stringify({ type: 'question', question: 'x'.repeat(10_000) }));
    t.equal(long.body.code, 'REQUEST_VARIABLE_INVALID', 'over 10,000 characters is refused');
  });

  t.test('a deleted message takes its submessages with it', async (t) => {
    const doomed = await send(hamlet, '/poll Delete me?');
    await post(othello, doomed, { type: 'vote', key: 'canned,0', vote: 1 });
    t.equal((await w.ts.request('DELETE', `/messages/${doomed}`)).status, 200, 'deleted');
    t.same((await post(othello, doomed, { type: 'vote', key: 'canned,0', vote: 1 })).body.msg, 'Invalid message(s)', 'nothing left to vote on');
  });

  t.test('the widget state is the same after a restart', async (t) => {
    const before = await fetchSubs(othello, poll);
    await w.ts.server.close();
    const again = await startTestServer(t, {}, { dataDir: w.ts.dataDir });
    const after = (await again.request('GET', `/messages/${poll}`, { auth: othello })).body.message.submessages;
    t.same(after, before, 'every submessage, in order');
    const vote = await again.request('POST', '/submessage', { auth: othello, params: { message_id: poll, msg_type: 'widget', content: JSON.stringify({ type: 'vote', key: 'canned,1', vote: 1 }) } });
    t.equal(vote.status, 200, 'and voting goes on');
    const ids = (await again.request('GET', `/messages/${poll}`, { auth: othello })).body.message.submessages.map((s: Sub) => s.id);
    t.equal(new Set(ids).size, ids.length, 'no submessage id is given twice');
    await again.close();
  });
});
