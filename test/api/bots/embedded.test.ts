import t from 'tap';
import { startTestServer } from '../../helpers/server.js';
import { eventually } from './bot-server.js';

t.test('embedded bots run in the server', async (t) => {
  const ts = await startTestServer(t, { embeddedBotsEnabled: true });
  const hello = await ts.request('POST', '/bots', { params: { full_name: 'Hello World', short_name: 'hw', bot_type: 4, service_name: 'helloworld' } });
  const crypt = await ts.request('POST', '/bots', { params: { full_name: 'Crypt', short_name: 'crypt', bot_type: 4, service_name: 'encrypt' } });
  const reg = await ts.request('POST', '/register', { params: { fetch_event_types: ['realm_embedded_bots'] } });
  t.same(reg.body.realm_embedded_bots, [{ name: 'helloworld', config: {} }, { name: 'encrypt', config: {} }], 'realm_embedded_bots lists them');
  const latest = async (topic: string, sender: number) => {
    const res = await ts.request('GET', '/messages', { params: { anchor: 'newest', num_before: 5, num_after: 0, narrow: [{ operator: 'topic', operand: topic }], apply_markdown: false } });
    return (res.body.messages as any[]).find((m) => m.sender_id === sender);
  };
  await ts.request('POST', '/messages', { params: { type: 'stream', to: 'general', topic: 'hi', content: '@**Hello World** hi' } });
  t.equal((await eventually(() => latest('hi', hello.body.user_id)))?.content, 'beep boop', 'helloworld answers a mention');
  await ts.request('POST', '/messages', { params: { type: 'stream', to: 'general', topic: 'secret', content: '@**Crypt** Hello, World' } });
  t.equal((await eventually(() => latest('secret', crypt.body.user_id)))?.content, 'Encrypted/Decrypted text: Uryyb, Jbeyq', 'encrypt answers with the mention taken out');
  await ts.request('POST', '/messages', { params: { type: 'stream', to: 'general', topic: 'later', content: 'hey @**Crypt** hi' } });
  await new Promise((r) => setTimeout(r, 1500));
  t.notOk(await latest('later', crypt.body.user_id), 'a mention not at the start is no command, as in the reference');
  await ts.request('POST', '/messages', { params: { type: 'direct', to: JSON.stringify([crypt.body.user_id]), content: 'abc' } });
  const dm = await eventually(async () => {
    const res = await ts.request('GET', '/messages', { params: { anchor: 'newest', num_before: 5, num_after: 0, narrow: [{ operator: 'dm', operand: [crypt.body.user_id] }], apply_markdown: false } });
    return (res.body.messages as any[]).find((m) => m.sender_id === crypt.body.user_id);
  });
  t.equal(dm?.content, 'Encrypted/Decrypted text: nop', 'and direct messages, whole');
});
