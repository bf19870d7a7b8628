import t from 'tap';
import { createUser, startTestServer } from '../../helpers/server.js';

/** Malformed narrows get the reference's errors, from GET /messages and POST /messages/flags/narrow alike. */
t.test('narrow errors', async (t) => {
  const ts = await startTestServer(t);
  const ann = await createUser(ts, 'ann@example.com', 'Ann');
  const bob = await createUser(ts, 'bob@example.com', 'Bob');
  const asAnn = ts.as(ann);
  const bobSecret = await ts.as(bob)('POST', '/messages', { params: { type: 'direct', to: [ts.owner.userId], content: 'not for Ann' } });
  const get = (narrow: string) => asAnn('GET', '/messages', { params: { anchor: 'newest', num_before: 10, narrow } });
  const term = (operator: unknown, operand: unknown, extra: Record<string, unknown> = {}) => ({ operator, operand, ...extra });

  t.test('shape errors', async (t) => {
    const rows: [string, string, string, string][] = [
      ['not JSON', 'nope', 'INVALID_JSON', 'Argument "narrow" is not valid JSON.'],
      ['not a list', '{}', 'REQUEST_VARIABLE_INVALID', 'narrow is not a list'],
      ['a pair of lists', '[[],[]]', 'BAD_REQUEST', 'Invalid narrow[0]: Value error, element is not a string pair'],
      ['a three-element pair', '[["a","b","c"]]', 'BAD_REQUEST', 'Invalid narrow[0]: Value error, element is not a string pair'],
      ['neither dict nor list', '["asadasd"]', 'BAD_REQUEST', 'Invalid narrow[0]: Value error, dict or list required'],
      ['null operator', JSON.stringify([term(null, 'x')]), 'BAD_REQUEST', 'Invalid narrow[0]: Value error, operator is missing'],
      ['missing operand', JSON.stringify([{ operator: 'stream' }]), 'BAD_REQUEST', 'Invalid narrow[0]: Value error, operand is missing'],
      ['second term bad', JSON.stringify([term('is', 'dm'), 5]), 'BAD_REQUEST', 'Invalid narrow[1]: Value error, dict or list required'],
      ['blank search', JSON.stringify([term('search', '  ')]), 'BAD_REQUEST', 'operand cannot be blank.'],
      ['object as a sender', JSON.stringify([term('sender', { id: 1 })]), 'BAD_REQUEST', 'operand is not a string or integer'],
      ['non-integer in a dm list', JSON.stringify([term('dm', [1, 'x'])]), 'BAD_REQUEST', 'operand[1] is not an integer'],
      ['object as a dm', JSON.stringify([term('dm', { a: 1 })]), 'BAD_REQUEST', 'operand is not a string or an integer list'],
      ['number as a topic', JSON.stringify([term('topic', 5)]), 'BAD_REQUEST', 'operand is not a string'],
      ['non-boolean negated', JSON.stringify([term('is', 'dm', { negated: 'yes' })]), 'BAD_REQUEST', 'negated is not a boolean'],
    ];
    for (const [name, narrow, code, msg] of rows) {
      const res = await get(narrow);
      t.equal(res.status, 400, `${name}: 400`);
      t.match(res.body, { result: 'error', code, msg }, `${name}: ${msg}`);
    }
  });

  t.test('meaning errors are BAD_NARROW with desc', async (t) => {
    const rows: [string, unknown[], string][] = [
      ['unknown operator', [term('foo', 'bar')], 'unknown operator foo'],
      ['unknown channel', [term('channel', 'nope')], 'unknown channel nope'],
      ['unknown channel id', [term('stream', 99999)], 'unknown channel 99999'],
      ['unknown channels operand', [term('channels', 'all')], 'unknown channels operand all'],
      ['unknown sender', [term('sender', 'who@example.com')], 'unknown user who@example.com'],
      ['unknown dm-including user', [term('dm-including', 99999)], 'unknown user 99999'],
      ['unknown dm user', [term('dm', [99999])], 'unknown user in [99999]'],
      ['unknown dm email', [term('dm', 'who@example.com')], 'unknown user in who@example.com'],
      ['unknown is', [term('is', 'bogus')], "unknown 'is' operand bogus"],
      ['unknown has', [term('has', 'bogus')], "unknown 'has' operand bogus"],
      ['unknown in', [term('in', 'bogus')], "unknown 'in' operand bogus"],
      ['bad id', [term('id', 'abc')], 'Invalid message ID'],
      ['bad with', [term('with', 'abc')], "Invalid 'with' operator"],
      ['with an unreadable message and no conversation', [term('with', bobSecret.body.id)], "Invalid 'with' operator"],
      ['channel and dm', [term('channel', 'general'), term('dm', [bob.userId])], 'No message can be both a channel message and direct message'],
      ['topic and is:dm', [term('is', 'dm'), term('topic', 'x')], 'No message can be both a channel message and direct message'],
    ];
    for (const [name, narrow, desc] of rows) {
      const res = await get(JSON.stringify(narrow));
      t.equal(res.status, 400, `${name}: 400`);
      t.same(res.body, { result: 'error', msg: `Invalid narrow operator: ${desc}`, code: 'BAD_NARROW', desc }, `${name}: ${desc}`);
    }
    const dup = await get(JSON.stringify([term('with', 1), term('with', 2)]));
    t.same(dup.body, { result: 'error', msg: "Invalid narrow operator combination: Duplicate 'with' operators.", code: 'BAD_NARROW', desc: "Duplicate 'with' operators." }, 'two with terms');
  });

  t.test('negated terms do not conflict', async (t) => {
    const res = await get(JSON.stringify([term('channel', 'general'), term('dm', [bob.userId], { negated: true })]));
    t.equal(res.status, 200, 'channel and -dm is fine');
  });

  t.test('with an unreadable message is ignored when the narrow names a conversation', async (t) => {
    const res = await get(JSON.stringify([term('dm', [bob.userId]), term('with', bobSecret.body.id)]));
    t.equal(res.status, 200, 'answered');
    t.same(res.body.messages, [], 'with the named conversation (empty), not Bob\'s message');
  });

  t.test('POST /messages/flags/narrow checks narrows the same way', async (t) => {
    const base = { anchor: 'newest', num_before: 10, num_after: 0, op: 'add', flag: 'read' };
    const shape = await asAnn('POST', '/messages/flags/narrow', { params: { ...base, narrow: '[[],[]]' } });
    t.equal(shape.body.msg, 'Invalid narrow[0]: Value error, element is not a string pair', 'shape error');
    const meaning = await asAnn('POST', '/messages/flags/narrow', { params: { ...base, narrow: JSON.stringify([term('is', 'bogus')]) } });
    t.equal(meaning.body.code, 'BAD_NARROW', 'meaning error');
    const missing = await asAnn('POST', '/messages/flags/narrow', { params: { anchor: 'newest', num_before: 1, num_after: 0, op: 'add', flag: 'read' } });
    t.same(missing.body, { result: 'error', msg: "Missing 'narrow' argument", code: 'REQUEST_VARIABLE_MISSING', var_name: 'narrow' }, 'narrow is required there');
  });
});
