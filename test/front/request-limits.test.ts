import { connect } from 'node:net';
import t from 'tap';
import { basic, rawExchange, rawRequest } from '../helpers/raw.js';
import { createUser, startTestServer } from '../helpers/server.js';

/**
 * Limits checked before a request's parameters are parsed or sent to a shard: body size while
 * it streams in, parameter count and depth, lone surrogates, loose numbers, and the errors of
 * Node's own HTTP parser, all answered in the API's JSON shape.
 */
t.test('request limits', async (t) => {
  const ts = await startTestServer(t, { requestLimits: { bodyBytes: 16384, params: 50, depth: 8 } });
  const host = ts.server.config.externalHost;
  const auth = basic(ts.owner);
  const general = (await ts.request('GET', '/get_stream_id', { params: { stream: 'general' } })).body.stream_id as number;
  const newest = async () => (await ts.request('GET', '/messages', { params: { anchor: 'newest', num_before: 1, num_after: 0 } })).body.messages[0]?.id ?? 0;

  t.test('a declared body over the limit is refused before it is read', async (t) => {
    // Only the headers are sent: the answer must not wait for a body that never comes.
    const res = await rawExchange(ts.port, [rawRequest('POST', '/api/v1/messages', { Host: host, Authorization: auth, 'Content-Type': 'application/x-www-form-urlencoded', 'Content-Length': '5000000' })]);
    t.equal(res.status, 413, '413');
    t.match(res.body, { result: 'error', code: 'BAD_REQUEST', msg: /too large/ }, 'a JSON error');
    t.equal(res.headers.connection, 'close', 'the connection closes (the body stays unread)');
  });

  t.test('a streamed body is cut off at the limit', async (t) => {
    const before = await newest();
    const head = rawRequest('POST', '/api/v1/messages', { Host: host, Authorization: auth, 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
    const chunk = (s: string) => `${Buffer.byteLength(s).toString(16)}\r\n${s}\r\n`;
    const pieces = [head, chunk(`{"type":"stream","to":${general},"topic":"big","content":"`), ...Array.from({ length: 20 }, () => chunk('x'.repeat(1000)))];
    const res = await rawExchange(ts.port, pieces, 5);
    t.equal(res.status, 413, '413 once the body passes the limit');
    t.equal(res.body.result, 'error', 'a JSON error');
    t.equal(await newest(), before, 'nothing was sent');
  });

  t.test('form and multipart bodies over the limit', async (t) => {
    const long = 'y'.repeat(20_000);
    for (const encoding of ['form', 'multipart', 'json'] as const) {
      const res = await ts.request('POST', '/messages', { params: { type: 'stream', to: general, topic: 't', content: long }, encoding });
      t.equal(res.status, 413, `${encoding}: 413`);
      t.equal(res.body.result, 'error', `${encoding}: a JSON error`);
    }
    const ok = await ts.request('POST', '/messages', { params: { type: 'stream', to: general, topic: 't', content: 'short' }, encoding: 'multipart' });
    t.equal(ok.status, 200, 'a body within the limit still goes through');
  });

  t.test('a multipart body with 100,000 fields: refused, and the connection closed', async (t) => {
    // The client writes its whole body before it reads, as many do: once the server has refused
    // the request it must close the connection, or the client waits forever on a full socket.
    const boundary = 'stoafields';
    const parts = Array.from({ length: 100_000 }, (_, i) => `--${boundary}\r\nContent-Disposition: form-data; name="p${i}"\r\n\r\nx\r\n`);
    const body = Buffer.from(`${parts.join('')}--${boundary}--\r\n`);
    const head = rawRequest('POST', '/api/v1/messages', { Host: host, Authorization: auth, 'Content-Type': `multipart/form-data; boundary=${boundary}`, 'Content-Length': String(body.length) });
    const outcome = await new Promise<{ closed: boolean; data: string }>((resolve) => {
      const socket = connect(ts.port, '127.0.0.1');
      let data = '';
      socket.on('data', (c) => (data += c));
      socket.on('error', () => undefined);
      socket.on('close', () => resolve({ closed: true, data }));
      socket.on('connect', () => socket.end(Buffer.concat([Buffer.from(head), body])));
      // Generous: the server answers after reading a few kilobytes.
      setTimeout(() => {
        socket.destroy();
        resolve({ closed: false, data });
      }, 60_000).unref();
    });
    t.ok(outcome.closed, 'the server closed the connection');
    if (outcome.data) {
      t.match(outcome.data, /^HTTP\/1\.1 400 /, 'after a 400');
      t.match(outcome.data, /Too many parameters/, 'saying why');
      t.match(outcome.data, /[Cc]onnection: close/, 'and saying it closes');
    }
    t.equal((await ts.request('GET', '/users/me')).status, 200, 'the server is fine');
  });

  t.test('too many parameters', async (t) => {
    const params = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`p${i}`, 'x']));
    for (const encoding of ['query', 'form', 'json'] as const) {
      const res = await ts.request('GET', '/users/me', { params, encoding, unchecked: true });
      t.equal(res.status, 400, `${encoding}: 400`);
      t.match(res.body.msg, /Too many parameters/, `${encoding}: says why`);
    }
  });

  t.test('nesting beyond the depth limit, in a JSON body and in a JSON field', async (t) => {
    const deep = (n: number) => '['.repeat(n) + ']'.repeat(n);
    // 5,000 deep overflowed the stack when the parameters were copied to the shard's thread.
    const body = `{"narrow": ${deep(5000)}, "anchor": "newest", "num_before": 1, "num_after": 0}`;
    const res = await rawExchange(ts.port, [rawRequest('GET', '/api/v1/messages', { Host: host, Authorization: auth, 'Content-Type': 'application/json' }, body)]);
    t.equal(res.status, 400, 'JSON body: 400, not 500');
    t.match(res.body, { code: 'REQUEST_VARIABLE_INVALID', var_name: 'narrow', msg: /nested too deeply/ }, 'names the parameter');
    const field = await ts.request('GET', '/messages', { params: { narrow: deep(1000), anchor: 'newest', num_before: 1, num_after: 0 } });
    t.equal(field.status, 400, 'JSON text in a field: 400');
    t.match(field.body.msg, /nested too deeply/, 'says why');
    const fine = await ts.request('GET', '/messages', { params: { narrow: [['channel', 'general']], anchor: 'newest', num_before: 1, num_after: 0 } });
    t.equal(fine.status, 200, 'ordinary nesting is fine');
    // Depth is counted alike in a JSON body and in a field: the limit (8) passes, one more does not.
    for (const encoding of ['form', 'json'] as const) {
      for (const n of [8, 9]) {
        const res = await ts.request('GET', '/messages', { params: { narrow: encoding === 'json' ? JSON.parse(deep(n)) : deep(n), anchor: 'newest', num_before: 1, num_after: 0 }, encoding, unchecked: true });
        if (n === 8) t.notMatch(res.body.msg, /nested too deeply/, `${encoding}: ${n} levels are within the limit`);
        else t.match(res.body.msg, /nested too deeply/, `${encoding}: ${n} levels are refused`);
      }
    }
    t.equal((await ts.request('GET', '/users/me')).status, 200, 'the server is still up');
  });

  t.test('lone surrogates are refused, not stored', async (t) => {
    const before = await newest();
    const body = `{"type": "stream", "to": ${general}, "topic": "a\\ud800b", "content": "hi"}`;
    const res = await rawExchange(ts.port, [rawRequest('POST', '/api/v1/messages', { Host: host, Authorization: auth, 'Content-Type': 'application/json' }, body)]);
    t.equal(res.status, 400, 'a JSON body: 400');
    t.match(res.body, { code: 'REQUEST_VARIABLE_INVALID', var_name: 'topic', msg: /lone surrogate/ }, 'names the parameter');
    const inKey = `{"type": "stream", "to": ${general}, "topic": "t", "content": "hi", "x\\udc00": 1}`;
    t.equal((await rawExchange(ts.port, [rawRequest('POST', '/api/v1/messages', { Host: host, Authorization: auth, 'Content-Type': 'application/json' }, inKey)])).status, 400, 'in a parameter name too');
    const field = await ts.request('GET', '/messages', { params: { narrow: '[["search", "a\\ud800"]]', anchor: 'newest', num_before: 1, num_after: 0 } });
    t.equal(field.status, 400, 'in JSON text inside a field: 400');
    t.equal(field.body.var_name, 'narrow', 'names the field');
    t.equal(await newest(), before, 'nothing was sent');
    const pair = await ts.request('POST', '/messages', { params: { type: 'stream', to: general, topic: 'emoji \ud83d\ude00', content: 'ok' }, encoding: 'json' });
    t.equal(pair.status, 200, 'a proper surrogate pair (an emoji) is fine');
  });

  t.test('numbers are strict', async (t) => {
    const before = await newest();
    const asTrue = await ts.request('POST', '/messages', { params: { type: 'stream', to: 'true', topic: 't', content: 'where?' } });
    t.equal(asTrue.status, 400, 'to=true is not channel 1');
    for (const encoding of ['form', 'multipart', 'json'] as const) {
      const asFloat = await ts.request('POST', '/messages', { params: { type: 'stream', to: `${general}.0`, topic: 't', content: 'where?' }, encoding });
      t.equal(asFloat.status, 400, `${encoding}: to=${general}.0 is not channel ${general}: an id is an integer`);
      t.equal(asFloat.body.msg, 'Invalid data type for channel', "with the reference's message");
    }
    t.equal(await newest(), before, 'nothing was sent');
    for (const bad of ['1e3', '0x10', ' 5', '5.0', 'true', '']) {
      const res = await ts.request('GET', '/messages', { params: { anchor: 'newest', num_before: bad, num_after: 0 } });
      t.equal(res.status, 400, `num_before=${JSON.stringify(bad)}: 400`);
      t.equal(res.body.var_name, 'num_before', 'names it');
    }
    const listed = await ts.request('GET', '/users', { params: { user_ids: '[true]' } });
    t.equal(listed.status, 400, 'true in a list of ids is not user 1');
    t.match(listed.body.msg, /user_ids\[0\] is not an integer/, 'names the element');
    t.equal((await ts.request('GET', '/messages', { params: { anchor: 'newest', num_before: '5', num_after: 0 } })).status, 200, 'a plain decimal is fine');
    t.equal((await ts.request('GET', '/users', { params: { user_ids: `[${ts.owner.userId}]` } })).status, 200, 'so is a number in JSON');
  });

  t.test("a JSON body's list is a list", async (t) => {
    const other = await createUser(ts, 'listed@example.com');
    const ids = [ts.owner.userId, other.userId];
    const res = await ts.request('GET', '/users', { params: { user_ids: ids }, encoding: 'json' });
    t.equal(res.status, 200, '200');
    t.same(res.body.members.map((m: { user_id: number }) => m.user_id).sort(), [...ids].sort(), 'both users, not the last one alone');
  });

  t.test('form bodies have flat names, as the reference reads them', async (t) => {
    const res = await ts.request('GET', '/users/me', { params: { 'a[b]': '1', 'c.d': '2' }, encoding: 'form' });
    t.equal(res.status, 200, '200');
    t.same([...res.body.ignored_parameters_unsupported].sort(), ['a[b]', 'c.d'], 'unknown names reported as sent, not as nested objects');
  });

  t.test("Node's HTTP parser errors are JSON", async (t) => {
    const garbage = await rawExchange(ts.port, ['NOT A REQUEST\r\n\r\n']);
    t.equal(garbage.status, 400, 'a malformed request line: 400');
    t.match(garbage.body, { result: 'error', code: 'BAD_REQUEST' }, 'in the API shape');
    const headers = await rawExchange(ts.port, [rawRequest('GET', '/api/v1/users/me', { Host: host, 'X-Big': 'z'.repeat(20_000) })]);
    t.equal(headers.status, 431, 'oversized headers: 431');
    t.equal(headers.body.result, 'error', 'in the API shape');
    const chunked = await rawExchange(ts.port, [rawRequest('POST', '/api/v1/users/me', { Host: host, 'Transfer-Encoding': 'chunked' }), 'zz\r\nbad\r\n']);
    t.equal(chunked.status, 400, 'a malformed chunk: 400');
    t.equal(chunked.body.result, 'error', 'in the API shape');
  });
});
