import t from 'tap';
import { startWorld, streamId, subscribe, type Person } from '../streams/world.js';

/**
 * Every narrow operator, alone, negated and combined, through GET /messages: each row is a
 * narrow and the messages Hamlet should get for it.
 */
t.test('GET /messages: narrow operators', async (t) => {
  const w = await startWorld(t);
  const { hamlet, othello, admin } = w.root;
  const asHamlet = w.as(hamlet);
  const asOthello = w.as(othello);
  await subscribe(asHamlet, ['verona']);
  await subscribe(asOthello, ['verona']);
  const verona = await streamId(asHamlet, 'verona');
  const general = await streamId(asHamlet, 'general');

  const send = async (who: Person, params: Record<string, unknown>) => {
    const res = await w.as(who)('POST', '/messages', { params });
    if (res.status !== 200) throw new Error(`send failed: ${JSON.stringify(res.body)}`);
    return res.body.id as number;
  };
  const m1 = await send(hamlet, { type: 'stream', to: 'general', topic: 'greetings', content: 'hello world https://example.com' });
  const m2 = await send(othello, { type: 'stream', to: 'general', topic: 'Greetings', content: 'second message' });
  const m3 = await send(othello, { type: 'stream', to: 'verona', topic: '✔ fixed', content: 'resolved thing' });
  const m4 = await send(hamlet, { type: 'direct', to: [othello.userId], content: 'secret plan' });
  const m5 = await send(othello, { type: 'direct', to: [hamlet.userId, admin.userId], content: 'group chat' });
  const m6 = await send(othello, { type: 'stream', to: 'general', topic: 'other', content: 'ping @**hamlet**' });
  const m7 = await send(hamlet, { type: 'direct', to: [hamlet.userId], content: 'note to self' });
  const all = [m1, m2, m3, m4, m5, m6, m7];
  const without = (...ids: number[]) => all.filter((id) => !ids.includes(id));

  const star = await asHamlet('POST', '/messages/flags', { params: { messages: [m2], op: 'add', flag: 'starred' } });
  t.equal(star.status, 200, 'm2 starred');
  const react = await asOthello('POST', `/messages/${m3}/reactions`, { params: { emoji_name: 'smile' } });
  t.equal(react.status, 200, 'a reaction on m3');

  const fetchIds = async (narrow: unknown, who = asHamlet) => {
    const res = await who('GET', '/messages', { params: { anchor: 'newest', num_before: 100, num_after: 0, narrow: JSON.stringify(narrow) } });
    if (res.status !== 200) throw new Error(`GET /messages ${JSON.stringify(narrow)}: ${JSON.stringify(res.body)}`);
    return (res.body.messages as { id: number }[]).map((m) => m.id);
  };
  const term = (operator: string, operand: unknown, negated = false) => ({ operator, operand, negated });

  const rows: [string, unknown[], number[]][] = [
    ['the empty narrow: everything Hamlet has', [], all],
    ['channel by name', [term('channel', 'general')], [m1, m2, m6]],
    ['-channel', [term('channel', 'general', true)], without(m1, m2, m6)],
    ['legacy stream by id', [term('stream', verona)], [m3]],
    ['legacy [operator, operand] pairs', [['stream', 'verona']], [m3]],
    ['channels:public', [term('channels', 'public')], [m1, m2, m3, m6]],
    ['-channels:public', [term('channels', 'public', true)], [m4, m5, m7]],
    ['channel and topic, topic case-insensitive', [term('channel', general), term('topic', 'GREETINGS')], [m1, m2]],
    ['topic alone', [term('topic', 'greetings')], [m1, m2]],
    ['-topic (direct messages have no topic)', [term('topic', 'greetings', true)], without(m1, m2)],
    ['sender by email', [term('sender', othello.email)], [m2, m3, m5, m6]],
    ['sender by id, negated', [term('sender', othello.userId, true)], [m1, m4, m7]],
    ['dm by id', [term('dm', [othello.userId])], [m4]],
    ['dm by comma-separated emails', [term('dm', `${othello.email},${admin.email}`)], [m5]],
    ['dm with ids in any order', [term('dm', [admin.userId, othello.userId])], [m5]],
    ['dm with oneself', [term('dm', [hamlet.userId])], [m7]],
    ['legacy pm-with', [term('pm-with', othello.email)], [m4]],
    ['-dm', [term('dm', [othello.userId], true)], without(m4)],
    ['dm-including another user', [term('dm-including', othello.userId)], [m4, m5]],
    ['dm-including oneself: all direct messages', [term('dm-including', hamlet.email)], [m4, m5, m7]],
    ['-dm-including', [term('dm-including', admin.userId, true)], without(m5)],
    ['group-pm-with (deprecated): group conversations only', [term('group-pm-with', othello.userId)], [m5]],
    ['id', [term('id', m3)], [m3]],
    ['id as text', [term('id', String(m3))], [m3]],
    ['-id', [term('id', m3, true)], without(m3)],
    ['near filters nothing', [term('near', String(m1))], all],
    ['with: the conversation of a message', [term('with', m1)], [m1, m2]],
    ['with replaces the narrow\'s own conversation', [term('channel', 'verona'), term('with', m4)], [m4]],
    ['is:dm', [term('is', 'dm')], [m4, m5, m7]],
    ['is:private (legacy)', [term('is', 'private')], [m4, m5, m7]],
    ['-is:dm', [term('is', 'dm', true)], [m1, m2, m3, m6]],
    ['is:starred', [term('is', 'starred')], [m2]],
    ['-is:starred', [term('is', 'starred', true)], without(m2)],
    ['is:mentioned', [term('is', 'mentioned')], [m6]],
    ['-is:mentioned', [term('is', 'mentioned', true)], without(m6)],
    ['is:alerted (no alert words)', [term('is', 'alerted')], []],
    ['is:resolved', [term('is', 'resolved')], [m3]],
    ['-is:resolved', [term('is', 'resolved', true)], without(m3)],
    // By default Hamlet follows the topics he starts (greetings) and those he is mentioned in (other).
    ['is:followed', [term('is', 'followed')], [m1, m2, m6]],
    ['-is:followed', [term('is', 'followed', true)], without(m1, m2, m6)],
    ['has:link', [term('has', 'link')], [m1]],
    ['-has:link', [term('has', 'link', true)], without(m1)],
    ['has:reaction', [term('has', 'reaction')], [m3]],
    ['has:image (none)', [term('has', 'image')], []],
    ['has:attachment, negated', [term('has', 'attachment', true)], all],
    ['in:home', [term('in', 'home')], all],
    ['search', [term('search', 'second')], [m2]],
    ['-search', [term('search', 'second', true)], without(m2)],
    ['search in the topic', [term('search', 'FIXED')], [m3]],
    ['channel and sender', [term('channel', 'general'), term('sender', othello.email)], [m2, m6]],
    ['channel, -sender', [term('channel', 'general'), term('sender', othello.email, true)], [m1]],
    ['is:dm and sender', [term('is', 'dm'), term('sender', othello.userId)], [m5]],
    ['starred in a channel', [term('channel', 'general'), term('is', 'starred')], [m2]],
    ['search within a channel', [term('channel', 'general'), term('search', 'message')], [m2]],
    ['contradictory channels', [term('channel', 'general'), term('channel', 'verona')], []],
  ];
  for (const [name, narrow, expected] of rows) {
    t.same(await fetchIds(narrow), expected, `${name}: ${JSON.stringify(narrow)}`);
  }

  t.test('is:unread follows reading', async (t) => {
    // Sent through the API without read_by_sender, Hamlet's own messages are unread for him too.
    t.same(await fetchIds([term('is', 'unread')]), all, 'everything starts unread');
    const read = await asHamlet('POST', '/messages/flags', { params: { messages: [m2, m3], op: 'add', flag: 'read' } });
    t.equal(read.status, 200, 'two marked read');
    t.same(await fetchIds([term('is', 'unread')]), without(m2, m3), 'no longer unread');
    t.same(await fetchIds([term('is', 'unread', true)]), [m2, m3], '-is:unread: the read ones');
    t.same(await fetchIds([term('channel', 'general'), term('is', 'unread')]), [m1, m6], 'unread in a channel');
    t.same(await fetchIds([term('is', 'unread')], asOthello), [m1, m2, m3, m4, m5, m6], 'Othello\'s unread state is his own');
  });
});
