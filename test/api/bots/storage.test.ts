import t from 'tap';
import { createUser, startTestServer } from '../../helpers/server.js';
import { restart } from '../users/restart.js';

t.test('bot storage', async (t) => {
  const ts = await startTestServer(t);
  const created = await ts.request('POST', '/bots', { params: { full_name: 'Store Bot', short_name: 'store' } });
  const bot = { email: (await ts.request('GET', `/users/${created.body.user_id}`)).body.user.email, apiKey: created.body.api_key };
  const asBot = ts.as(bot);
  const member = await createUser(ts, 'member@example.com', 'Member');

  t.test('PUT, GET, DELETE', async (t) => {
    t.same((await asBot('GET', '/bot_storage')).body.storage, {}, 'empty at first');
    const put = await asBot('PUT', '/bot_storage', { params: { storage: { a: '1', b: 'two', 'long key ': 'x'.repeat(10) } } });
    t.equal(put.status, 200, 'stored');
    t.same((await asBot('GET', '/bot_storage')).body.storage, { a: '1', b: 'two', 'long key ': 'x'.repeat(10) }, 'everything');
    t.same((await asBot('GET', '/bot_storage', { params: { keys: ['b'] } })).body.storage, { b: 'two' }, 'by key');
    await asBot('PUT', '/bot_storage', { params: { storage: { a: 'one' } } });
    t.same((await asBot('GET', '/bot_storage', { params: { keys: ['a'] } })).body.storage, { a: 'one' }, 'overwritten');
    const missing = await asBot('GET', '/bot_storage', { params: { keys: ['a', 'nope'] } });
    t.same(missing.body, { result: 'error', msg: 'Key does not exist.', code: 'BAD_REQUEST' }, 'an unknown key');
    const delMissing = await asBot('DELETE', '/bot_storage', { params: { keys: ['a', 'nope'] } });
    t.same(delMissing.body.msg, 'Key does not exist.', 'deleting an unknown key removes nothing');
    t.ok('a' in (await asBot('GET', '/bot_storage')).body.storage, 'a is still there');
    await asBot('DELETE', '/bot_storage', { params: { keys: ['a'] } });
    t.same(Object.keys((await asBot('GET', '/bot_storage')).body.storage).sort(), ['b', 'long key '], 'a removed');
    const bad = await asBot('PUT', '/bot_storage', { params: { storage: { n: { x: 1 } } } });
    t.equal(bad.body.code, 'REQUEST_VARIABLE_INVALID', 'values must be strings');
    const notJson = await asBot('PUT', '/bot_storage', { params: { storage: 'nope' } });
    t.equal(notJson.body.code, 'INVALID_JSON', 'storage must be JSON');
    const long = 'k'.repeat(2000);
    await asBot('PUT', '/bot_storage', { params: { storage: { [long]: 'v' } } });
    t.same((await asBot('GET', '/bot_storage', { params: { keys: [long] } })).body.storage, { [long]: 'v' }, 'a key too long for an LMDB key');
    await asBot('DELETE', '/bot_storage');
    t.same((await asBot('GET', '/bot_storage')).body.storage, {}, 'DELETE without keys empties it');
  });

  t.test('the size limit counts the characters of keys and values', async (t) => {
    await asBot('PUT', '/bot_storage', { params: { storage: { big: 'x'.repeat(9_999_990) } } });
    const over = await asBot('PUT', '/bot_storage', { params: { storage: { more: 'y'.repeat(10) } } });
    t.same(over.body, { result: 'error', msg: 'Request exceeds storage limit by 7 characters. The limit is 10000000 characters.', code: 'BAD_REQUEST' }, 'the reference\'s error');
    const replace = await asBot('PUT', '/bot_storage', { params: { storage: { big: 'z'.repeat(9_999_997) } } });
    t.equal(replace.status, 200, 'replacing a value counts only the difference');
    await asBot('DELETE', '/bot_storage');
  });

  t.test('storage is per user and survives a restart', async (t) => {
    await asBot('PUT', '/bot_storage', { params: { storage: { mine: 'bot' } } });
    await ts.as(member)('PUT', '/bot_storage', { params: { storage: { mine: 'member' } } });
    t.same((await ts.as(member)('GET', '/bot_storage')).body.storage, { mine: 'member' }, 'the member sees only their own');
    await restart(t, ts, async () => undefined);
    t.same((await asBot('GET', '/bot_storage')).body.storage, { mine: 'bot' }, 'the bot\'s, after the restart');
    const reg = await ts.request('POST', '/register', { params: { fetch_event_types: ['realm_bot'] } });
    t.match(reg.body.realm_bots, [{ user_id: created.body.user_id, full_name: 'Store Bot' }], 'and the bot itself');
  });
});
