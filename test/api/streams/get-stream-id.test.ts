import t from 'tap';
import { startWorld, streamId, subscribe } from './world.js';

t.test('GET /get_stream_id', async (t) => {
  const w = await startWorld(t);
  const { owner, admin, hamlet, othello, polonius } = w.root;
  await subscribe(w.as(hamlet), ['Verona']);
  await subscribe(w.as(hamlet), ['secret'], { invite_only: true });
  await subscribe(w.asOther(w.other.hamlet), ['elsewhere']);
  const verona = await streamId(w.as(owner), 'Verona');

  t.test('GET /get_stream_id: returns the id of a channel, ignoring case', async (t) => {
    const res = await w.as(othello)('GET', '/get_stream_id', { params: { stream: 'Verona' } });
    t.equal(res.status, 200, 'status 200');
    t.equal(res.body.stream_id, verona, 'the id');
    const lower = await w.as(othello)('GET', '/get_stream_id', { params: { stream: 'verona' } });
    t.equal(lower.body.stream_id, verona, 'names match without regard to case');
  });

  t.test('GET /get_stream_id: unknown and inaccessible names give the same error', async (t) => {
    const unknown = await w.as(othello)('GET', '/get_stream_id', { params: { stream: 'nonexistent' } });
    t.equal(unknown.status, 400, 'status 400');
    t.same(unknown.body, { result: 'error', msg: "Invalid channel name 'nonexistent'", code: 'BAD_REQUEST' }, 'the reference error');
    const hidden = await w.as(othello)('GET', '/get_stream_id', { params: { stream: 'secret' } });
    t.same(hidden.body, { result: 'error', msg: "Invalid channel name 'secret'", code: 'BAD_REQUEST' }, 'a private channel is not revealed');
    const adminView = await w.as(admin)('GET', '/get_stream_id', { params: { stream: 'secret' } });
    t.equal(adminView.body.msg, "Invalid channel name 'secret'", 'content access is needed, which administrators lack');
    const mine = await w.as(hamlet)('GET', '/get_stream_id', { params: { stream: 'secret' } });
    t.equal(mine.status, 200, 'a subscriber gets the id');
  });

  t.test('GET /get_stream_id: guests get ids of their channels only', async (t) => {
    const res = await w.as(polonius)('GET', '/get_stream_id', { params: { stream: 'Verona' } });
    t.equal(res.body.msg, "Invalid channel name 'Verona'", 'a public channel the guest is not in');
    const general = await w.as(polonius)('GET', '/get_stream_id', { params: { stream: 'general' } });
    t.equal(general.status, 200, 'a subscribed channel');
  });

  t.test("GET /get_stream_id: another realm's channel is unknown", async (t) => {
    const res = await w.as(hamlet)('GET', '/get_stream_id', { params: { stream: 'elsewhere' } });
    t.equal(res.body.msg, "Invalid channel name 'elsewhere'", 'not found across realms');
  });

  t.test('GET /get_stream_id: requires the stream parameter', async (t) => {
    const res = await w.as(hamlet)('GET', '/get_stream_id');
    t.equal(res.status, 400, 'status 400');
    t.same(res.body, { result: 'error', msg: "Missing 'stream' argument", code: 'REQUEST_VARIABLE_MISSING', var_name: 'stream' }, 'missing argument');
  });
});
