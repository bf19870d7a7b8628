import t from 'tap';
import { startTestServer } from '../../helpers/server.js';
import { fixtureText, newest, postRaw, runCaseTable, webhookBot } from './cases.js';

t.test('POST /external/bitbucket2', async (t) => {
  const ts = await startTestServer(t);

  t.test('the reference\'s test cases', async (t) => {
    await runCaseTable(t, ts, 'bitbucket2');
  });

  // The reference's test_get_user_info, through HTTP: the actor is named by its display name,
  // else its nickname, else "Unknown user".
  t.test('the actor\'s name: display name, nickname, or "Unknown user"', async (t) => {
    const bot = await webhookBot(ts, 'bitbucket2');
    const fork = JSON.parse(fixtureText('bitbucket2', 'fork'));
    const actors: [object, string][] = [
      [{ nickname: 'alice', noisy_field: 'whatever', display_name: 'Alice Smith' }, 'Alice Smith'],
      [{ nickname: 'alice', noisy_field: 'whatever' }, 'alice'],
      [{ noisy_field: 'whatever' }, 'Unknown user'],
      [{}, 'Unknown user'],
    ];
    for (const [actor, name] of actors) {
      const res = await postRaw(ts, '/api/v1/external/bitbucket2', { api_key: bot.apiKey, stream: 'bitbucket2' }, JSON.stringify({ ...fork, actor }), { 'content-type': 'application/json' });
      t.equal(res.body.result, 'success', `actor ${JSON.stringify(actor)} accepted`);
      const [msg] = await newest(ts, [{ operator: 'channel', operand: 'bitbucket2' }], 1);
      t.equal(msg.content, `${name} forked the repository into [kolaszek/repository-name2](https://bitbucket.org/kolaszek/repository-name2).`, `named ${name}`);
    }
  });

  t.test('the channel and topic in the URL are decoded once more (Bitbucket escapes them twice)', async (t) => {
    const bot = await webhookBot(ts, 'bitbucket2');
    await ts.request('POST', '/users/me/subscriptions', { params: { subscriptions: [{ name: 'code review' }] } });
    const res = await postRaw(ts, '/api/v1/external/bitbucket2', { api_key: bot.apiKey, stream: 'code%20review', topic: 'forks%20%26%20more' }, fixtureText('bitbucket2', 'fork'), { 'content-type': 'application/json' });
    t.equal(res.body.result, 'success', 'accepted');
    const [msg] = await newest(ts, [{ operator: 'channel', operand: 'code review' }], 1);
    t.equal(msg?.subject, 'forks & more', 'in the decoded channel and topic');
  });
});
