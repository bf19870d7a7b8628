import t from 'tap';
import { startWorld, streamId, subscribe, type Person } from '../streams/world.js';

/**
 * No narrow shows a user what they may not read: other people's direct messages, private
 * channels they are not in, history a private channel protects, or (for guests) public channels
 * they are not subscribed to. Other realms' messages are out of reach entirely.
 */
t.test('GET /messages: privacy', async (t) => {
  const w = await startWorld(t);
  const { hamlet, othello, admin, polonius } = w.root;
  const send = async (who: Person, params: Record<string, unknown>) => {
    const res = await w.as(who)('POST', '/messages', { params });
    if (res.status !== 200) throw new Error(`send failed: ${JSON.stringify(res.body)}`);
    return res.body.id as number;
  };
  const term = (operator: string, operand: unknown, negated = false) => ({ operator, operand, negated });
  const ids = async (who: Person, narrow: unknown[], host?: string) => {
    const client = host ? w.asOther(who) : w.as(who);
    const res = await client('GET', '/messages', { params: { anchor: 'newest', num_before: 1000, narrow: JSON.stringify(narrow) } });
    if (res.status !== 200) throw new Error(`GET /messages: ${JSON.stringify(res.body)}`);
    return (res.body.messages as { id: number }[]).map((m) => m.id);
  };

  await subscribe(w.as(othello), ['secret'], { invite_only: true, principals: JSON.stringify([othello.userId, hamlet.userId]) });
  await subscribe(w.as(othello), ['shared'], { invite_only: true, history_public_to_subscribers: true });
  await subscribe(w.as(othello), ['verona']);
  const dm = await send(othello, { type: 'direct', to: [admin.userId], content: 'zebra whisper' });
  const early = await send(othello, { type: 'stream', to: 'secret', topic: 'plans', content: 'zebra early' });
  const sharedEarly = await send(othello, { type: 'stream', to: 'shared', topic: 'plans', content: 'zebra shared' });
  const veronaMsg = await send(othello, { type: 'stream', to: 'verona', topic: 'town', content: 'zebra verona' });
  const generalMsg = await send(othello, { type: 'stream', to: 'general', topic: 'hi', content: 'zebra general' });

  t.test('other people\'s direct messages', async (t) => {
    const narrows: unknown[][] = [[], [term('is', 'dm')], [term('dm-including', othello.userId)], [term('sender', othello.userId)], [term('search', 'zebra')], [term('id', dm)], [term('dm', [othello.userId, admin.userId])]];
    for (const narrow of narrows) t.notOk((await ids(hamlet, narrow)).includes(dm), `Hamlet never sees it: ${JSON.stringify(narrow)}`);
    t.ok((await ids(admin, [term('id', dm)])).includes(dm), 'its recipient does');
  });

  t.test('a private channel one is not in', async (t) => {
    const secret = await streamId(w.as(w.root.owner), 'secret');
    const narrows: unknown[][] = [[term('channel', 'secret')], [term('channel', secret)], [term('channels', 'public')], [term('search', 'zebra')], [term('id', early)], [], [term('sender', othello.email)]];
    for (const narrow of narrows) t.notOk((await ids(admin, narrow)).includes(early), `an administrator outside it: ${JSON.stringify(narrow)}`);
    t.same(await ids(hamlet, [term('channel', 'secret')]), [early], 'a subscriber sees it');
    t.notOk((await ids(hamlet, [term('channels', 'public')])).includes(early), 'channels:public leaves private channels out');
  });

  t.test('protected history', async (t) => {
    await subscribe(w.as(othello), ['secret'], { principals: JSON.stringify([polonius.userId]) });
    const later = await send(othello, { type: 'stream', to: 'secret', topic: 'plans', content: 'zebra later' });
    t.same(await ids(polonius, [term('channel', 'secret')]), [later], 'a late subscriber sees only what came after');
    t.same(await ids(polonius, [term('with', early), term('channel', 'secret'), term('topic', 'plans')]), [later], 'a link to an earlier message does not reveal it');
    t.notOk((await ids(polonius, [term('search', 'zebra')])).includes(early), 'nor does search');
  });

  t.test('shared history of a private channel', async (t) => {
    await subscribe(w.as(othello), ['shared'], { principals: JSON.stringify([hamlet.userId]) });
    t.same(await ids(hamlet, [term('channel', 'shared')]), [sharedEarly], 'a late subscriber sees the earlier message');
    t.notOk((await ids(admin, [term('channel', 'shared')])).includes(sharedEarly), 'a non-subscriber does not');
  });

  t.test('public channels: members read their history, guests do not', async (t) => {
    t.same(await ids(hamlet, [term('channel', 'verona')]), [veronaMsg], 'a member not subscribed reads the channel');
    t.ok((await ids(hamlet, [term('channels', 'public')])).includes(veronaMsg), 'and finds it with channels:public');
    t.notOk((await ids(hamlet, [])).includes(veronaMsg), 'but it is not in their own feed');
    const narrows: unknown[][] = [[term('channel', 'verona')], [term('channels', 'public')], [term('search', 'zebra')], [term('id', veronaMsg)], [term('sender', othello.userId)], [term('topic', 'town')]];
    for (const narrow of narrows) t.notOk((await ids(polonius, narrow)).includes(veronaMsg), `a guest never sees it: ${JSON.stringify(narrow)}`);
    t.ok((await ids(polonius, [term('channels', 'public')])).includes(generalMsg), 'a guest sees the public channel they are in');
  });

  t.test('other realms', async (t) => {
    const stranger = w.other.hamlet;
    t.notOk((await ids(stranger, [term('id', generalMsg)], w.otherHost)).includes(generalMsg), 'an id from another realm finds nothing');
    t.notOk((await ids(stranger, [term('search', 'zebra')], w.otherHost)).length > 0, 'search stays within the realm');
    const flags = await w.asOther(stranger)('POST', '/messages/flags', { params: { messages: [generalMsg], op: 'add', flag: 'starred' } });
    t.equal(flags.body.msg, 'Invalid message(s)', 'another realm\'s message cannot be flagged');
  });
});
