import t from 'tap';
import { startWorld, streamId, subscribe, type Person } from '../streams/world.js';

/** POST /messages/flags: which flags change, on which messages, and the reference's errors. */
t.test('POST /messages/flags', async (t) => {
  const w = await startWorld(t);
  const { hamlet, othello, admin, polonius } = w.root;
  const asHamlet = w.as(hamlet);
  await subscribe(w.as(othello), ['verona']);
  await subscribe(asHamlet, ['verona']);
  const verona = await streamId(asHamlet, 'verona');
  const send = async (who: Person, params: Record<string, unknown>) => (await w.as(who)('POST', '/messages', { params })).body.id as number;
  const m1 = await send(othello, { type: 'stream', to: 'general', topic: 'a', content: 'one' });
  const m2 = await send(othello, { type: 'stream', to: 'general', topic: 'a', content: 'two' });
  const inVerona = await send(othello, { type: 'stream', to: 'verona', topic: 'b', content: 'three' });
  const othersDm = await send(othello, { type: 'direct', to: [admin.userId], content: 'private' });
  const flags = async (who: Person, id: number) => {
    const res = await w.as(who)('GET', `/messages/${id}`);
    return res.body.message?.flags as string[] | undefined;
  };
  const update = (who: Person, messages: unknown, op: string, flag: string) => w.as(who)('POST', '/messages/flags', { params: { messages: typeof messages === 'string' ? messages : JSON.stringify(messages), op, flag } });

  t.test('starred', async (t) => {
    const add = await update(hamlet, [m1, m2], 'add', 'starred');
    t.same(add.body, { result: 'success', msg: '', messages: [m1, m2] }, 'answers with the ids given');
    t.same(await flags(hamlet, m1), ['starred'], 'starred');
    t.same(await flags(othello, m1), [], 'Othello\'s flags are his own');
    const remove = await update(hamlet, [m1], 'remove', 'starred');
    t.equal(remove.status, 200, 'removed');
    t.same(await flags(hamlet, m1), [], 'no longer starred');
    t.same(await flags(hamlet, m2), ['starred'], 'the other stays');
  });

  t.test('collapsed', async (t) => {
    await update(hamlet, [m2], 'add', 'collapsed');
    t.same(await flags(hamlet, m2), ['starred', 'collapsed'], 'collapsed added, in the reference order');
    await update(hamlet, [m2], 'remove', 'collapsed');
    t.same(await flags(hamlet, m2), ['starred'], 'collapsed removed');
  });

  t.test('read', async (t) => {
    const add = await update(hamlet, [m1], 'add', 'read');
    t.same(add.body, { result: 'success', msg: '', messages: [m1] }, 'no ignored list when adding');
    t.same(await flags(hamlet, m1), ['read'], 'read');
    const remove = await update(hamlet, [m1], 'remove', 'read');
    t.same(remove.body, { result: 'success', msg: '', messages: [m1], ignored_because_not_subscribed_channels: [] }, 'the ignored list when removing read');
    t.same(await flags(hamlet, m1), [], 'unread again');
  });

  t.test('marking unread skips channels one is not subscribed to', async (t) => {
    await update(hamlet, [inVerona], 'add', 'read');
    const left = await asHamlet('DELETE', '/users/me/subscriptions', { params: { subscriptions: JSON.stringify(['verona']) } });
    t.equal(left.status, 200, 'Hamlet left verona');
    const res = await update(hamlet, [inVerona, m1], 'remove', 'read');
    t.same(res.body.ignored_because_not_subscribed_channels, [verona], 'verona reported');
    t.same(await flags(hamlet, inVerona), ['read'], 'its message stays read');
  });

  t.test('messages one did not receive', async (t) => {
    const late = await send(othello, { type: 'stream', to: 'verona', topic: 'b', content: 'after Hamlet left' });
    t.same(await flags(hamlet, late), ['read', 'historical'], 'read and historical');
    await update(hamlet, [late], 'add', 'starred');
    t.same(await flags(hamlet, late), ['read', 'starred', 'historical'], 'starring one keeps it historical');
    await update(hamlet, [late], 'remove', 'starred');
    t.same(await flags(hamlet, late), ['read', 'historical'], 'and unstarring');
    const guest = await update(polonius, [late], 'add', 'starred');
    t.equal(guest.body.msg, 'Invalid message(s)', 'a guest cannot star a message of a channel they are not in');
  });

  t.test('errors change nothing', async (t) => {
    const rows: [string, unknown, string, string, string][] = [
      ['unknown flag', [m1], 'add', 'bogus', "Invalid flag: 'bogus'"],
      ['mentioned is not editable', [m1], 'add', 'mentioned', "Flag not editable: 'mentioned'"],
      ['historical is not editable', [m1], 'remove', 'historical', "Flag not editable: 'historical'"],
      ['has_alert_word is not editable', [m1], 'add', 'has_alert_word', "Flag not editable: 'has_alert_word'"],
      ['wildcard_mentioned is not a flag one can name', [m1], 'add', 'wildcard_mentioned', "Invalid flag: 'wildcard_mentioned'"],
      ['bad op', [m1], 'toggle', 'starred', "Invalid message flag operation: 'toggle'"],
      ['someone else\'s direct message', [m1, othersDm], 'add', 'starred', 'Invalid message(s)'],
      ['a message that does not exist', [m1, 999999], 'add', 'starred', 'Invalid message(s)'],
      ['marking unread what one cannot read', [999999], 'remove', 'read', 'Invalid message(s)'],
    ];
    for (const [name, messages, op, flag, msg] of rows) {
      const res = await update(hamlet, messages, op, flag);
      t.same(res.body, { result: 'error', msg, code: 'BAD_REQUEST' }, `${name}: ${msg}`);
    }
    t.same(await flags(hamlet, m1), [], 'm1 not starred by the failed requests');
    const notList = await update(hamlet, 'nope', 'add', 'read');
    t.equal(notList.body.code, 'INVALID_JSON', 'messages must be JSON');
    const notInts = await update(hamlet, ['x'], 'add', 'read');
    t.equal(notInts.body.msg, 'messages[0] is not an integer', 'of integers');
    const missing = await asHamlet('POST', '/messages/flags', { params: { messages: '[]', flag: 'read' } });
    t.equal(missing.body.code, 'REQUEST_VARIABLE_MISSING', 'op is required');
  });

  t.test('skipped without error where nothing would change', async (t) => {
    const res = await update(hamlet, [othersDm, 999999], 'add', 'read');
    t.equal(res.status, 200, 'marking read what one cannot see is a no-op');
    const unstar = await update(hamlet, [othersDm], 'remove', 'starred');
    t.equal(unstar.status, 200, 'so is unstarring it');
    t.same(await flags(admin, othersDm), [], 'the recipient\'s flags are untouched');
  });
});
