import t from 'tap';
import { convergenceHarness } from '../../helpers/convergence.js';
import { restart } from '../users/restart.js';
import { startWorld, type Person } from '../streams/world.js';

t.test('GET, POST and DELETE /users/me/alert_words', async (t) => {
  const w = await startWorld(t);
  const { hamlet, othello, bot, polonius } = w.root;
  const words = async (who: Person) => (await w.as(who)('GET', '/users/me/alert_words')).body.alert_words;

  t.test('a user starts with none', async (t) => {
    t.same(await words(hamlet), [], 'empty');
  });

  t.test('adding: stripped, blanks dropped, case kept, no word twice in any case', async (t) => {
    const res = await w.as(hamlet)('POST', '/users/me/alert_words', { params: { alert_words: ['  Deploy ', '', '   ', 'release notes'] } });
    t.same(res.body, { result: 'success', msg: '', alert_words: ['Deploy', 'release notes'] }, 'the list comes back');
    const again = await w.as(hamlet)('POST', '/users/me/alert_words', { params: { alert_words: ['DEPLOY', 'outage', 'Outage', 'OUTAGE'] } });
    t.same(again.body.alert_words, ['Deploy', 'release notes', 'OUTAGE'], 'a word already there in another case is skipped; among new ones the last spelling wins');
    t.same(await words(hamlet), ['Deploy', 'release notes', 'OUTAGE'], 'GET agrees');
    t.same(await words(othello), [], "another user's list is their own");
  });

  t.test('removing, in any case; unknown words are ignored', async (t) => {
    const res = await w.as(hamlet)('DELETE', '/users/me/alert_words', { params: { alert_words: ['outage', 'never added'] } });
    t.same(res.body, { result: 'success', msg: '', alert_words: ['Deploy', 'release notes'] }, 'removed');
  });

  t.test('errors', async (t) => {
    const long = await w.as(hamlet)('POST', '/users/me/alert_words', { params: { alert_words: ['ok', 'x'.repeat(101)] } });
    t.equal(long.status, 400, 'a word over 100 characters is refused');
    t.equal(long.body.msg, 'alert_words[1] is too long (limit: 100 characters)', "the reference's message");
    const missing = await w.as(hamlet)('POST', '/users/me/alert_words', { params: {} });
    t.same(missing.body, { result: 'error', msg: "Missing 'alert_words' argument", code: 'REQUEST_VARIABLE_MISSING', var_name: 'alert_words' }, 'the list is required');
    const notList = await w.as(hamlet)('DELETE', '/users/me/alert_words', { params: { alert_words: '{"a": 1}' } });
    t.equal(notList.status, 400, 'not a list');
    t.same(await words(hamlet), ['Deploy', 'release notes'], 'nothing changed');
  });

  t.test('guests and bots have alert words too', async (t) => {
    t.same((await w.as(polonius)('POST', '/users/me/alert_words', { params: { alert_words: ['ghost'] } })).body.alert_words, ['ghost'], 'a guest');
    t.same((await w.as(bot)('POST', '/users/me/alert_words', { params: { alert_words: ['beep'] } })).body.alert_words, ['beep'], 'a bot');
  });

  t.test('they survive a restart, and /register lists them', async (t) => {
    await restart(t, w.ts, async () => undefined);
    t.same(await words(hamlet), ['Deploy', 'release notes'], 'kept');
    const reg = await w.as(hamlet)('POST', '/register', { params: { fetch_event_types: ['alert_words'] } });
    t.same(reg.body.alert_words, ['Deploy', 'release notes'], 'in /register');
    const sent = await w.as(othello)('POST', '/messages', { params: { type: 'stream', to: 'general', topic: 't', content: 'the deploy is done' } });
    const got = await w.as(hamlet)('GET', '/messages', { params: { message_ids: [sent.body.id] } });
    t.ok(got.body.messages[0].flags.includes('has_alert_word'), 'and sends still match them');
  });
});

t.test('has_alert_word on sent and edited messages', async (t) => {
  const w = await startWorld(t);
  const { hamlet, othello, polonius, admin } = w.root;
  await w.as(hamlet)('POST', '/users/me/alert_words', { params: { alert_words: ['Deploy', 'release notes'] } });
  await w.as(polonius)('POST', '/users/me/alert_words', { params: { alert_words: ['deploy'] } });
  const reg = await w.as(hamlet)('POST', '/register', { params: { event_types: ['message', 'update_message'] } });
  const send = async (content: string, to: unknown = 'general', as = othello) => {
    const params = typeof to === 'string' ? { type: 'stream', to, topic: 'ops', content } : { type: 'direct', to, content };
    const res = await w.as(as)('POST', '/messages', { params });
    if (res.status !== 200) throw new Error(JSON.stringify(res.body));
    return res.body.id as number;
  };
  const flags = async (who: Person, id: number) => (await w.as(who)('GET', '/messages', { params: { message_ids: [id] } })).body.messages[0]?.flags ?? [];

  t.test('whole words, in any case', async (t) => {
    const cases: [string, boolean][] = [
      ['We DEPLOY at noon', true],
      ['redeploy later', false],
      ['deployment tomorrow', false],
      ['(deploy)', true],
      ['see the Release Notes.', true],
      ['release, notes', false],
      ['```\ndeploy\n```', false],
      ['`deploy`', true],
    ];
    for (const [content, expected] of cases) {
      const id = await send(content);
      t.equal((await flags(hamlet, id)).includes('has_alert_word'), expected, `${JSON.stringify(content)}: ${expected ? 'flagged' : 'not flagged'}`);
    }
  });

  t.test('only for users with the word, including in direct messages', async (t) => {
    const id = await send('deploy now');
    t.ok((await flags(polonius, id)).includes('has_alert_word'), 'the guest with the same word');
    t.notOk((await flags(admin, id)).includes('has_alert_word'), 'not an administrator without alert words');
    t.notOk((await flags(othello, id)).includes('has_alert_word'), 'not the sender');
    const dm = await send('release notes are out', [hamlet.userId]);
    t.ok((await flags(hamlet, dm)).includes('has_alert_word'), 'a direct message');
    const own = await send('my release notes', 'general', hamlet);
    t.ok((await flags(hamlet, own)).includes('has_alert_word'), "a sender's own words match their message, as the reference flags it");
  });

  t.test('the message event carries the flag, and is:alerted finds the messages', async (t) => {
    const id = await send('Deploy!');
    const got = await w.as(hamlet)('GET', '/events', { params: { queue_id: reg.body.queue_id, last_event_id: -1, dont_block: true } });
    const event = got.body.events.find((e: { type: string; message?: { id: number } }) => e.type === 'message' && e.message?.id === id);
    t.ok(event.flags.includes('has_alert_word'), 'in the event');
    const alerted = await w.as(hamlet)('GET', '/messages', { params: { anchor: 'newest', num_before: 100, num_after: 0, narrow: [{ operator: 'is', operand: 'alerted' }] } });
    t.ok(alerted.body.messages.some((m: { id: number }) => m.id === id), 'is:alerted');
    t.ok(alerted.body.messages.every((m: { flags: string[] }) => m.flags.includes('has_alert_word')), 'and only flagged messages');
  });

  t.test('an edit matches the words anew', async (t) => {
    const id = await send('nothing to see');
    t.notOk((await flags(hamlet, id)).includes('has_alert_word'), 'not flagged at first');
    t.equal((await w.as(othello)('PATCH', `/messages/${id}`, { params: { content: 'time to deploy' } })).status, 200, 'edited');
    t.ok((await flags(hamlet, id)).includes('has_alert_word'), 'flagged after the edit');
    const got = await w.as(hamlet)('GET', '/events', { params: { queue_id: reg.body.queue_id, last_event_id: -1, dont_block: true } });
    const update = got.body.events.filter((e: { type: string; message_id?: number }) => e.type === 'update_message' && e.message_id === id).pop();
    t.ok(update.flags.includes('has_alert_word'), 'the update_message event carries the new flags');
    await w.as(othello)('PATCH', `/messages/${id}`, { params: { content: 'never mind' } });
    t.notOk((await flags(hamlet, id)).includes('has_alert_word'), 'cleared by the next edit');
  });

  t.test('removing a word stops new matches but keeps old flags', async (t) => {
    const before = await send('deploy again');
    await w.as(hamlet)('DELETE', '/users/me/alert_words', { params: { alert_words: ['deploy'] } });
    const after = await send('deploy once more');
    t.ok((await flags(hamlet, before)).includes('has_alert_word'), 'the earlier message keeps its flag');
    t.notOk((await flags(hamlet, after)).includes('has_alert_word'), 'the new one has none');
  });
});

t.test('alert word changes converge with a fresh snapshot', async (t) => {
  const w = await startWorld(t);
  const { hamlet, othello } = w.root;
  const { ok, converges } = convergenceHarness(t, w.ts);
  const options = { sections: ['alert_words'] };
  await converges('adding', () => ok(hamlet, 'POST', '/users/me/alert_words', { alert_words: ['Deploy', 'outage'] }), [hamlet, othello], options);
  await converges('a message with one', () => ok(othello, 'POST', '/messages', { type: 'stream', to: 'general', topic: 'x', content: 'deploy!' }), [hamlet, othello], options);
  await converges('removing', () => ok(hamlet, 'DELETE', '/users/me/alert_words', { alert_words: ['DEPLOY'] }), [hamlet], options);
});
