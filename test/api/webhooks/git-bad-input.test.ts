import t from 'tap';
import { startTestServer } from '../../helpers/server.js';
import { fixtureText, newest, postRaw, webhookBot } from './cases.js';

/**
 * The git integrations under bad input: a missing or malformed body, an event the integration
 * does not know, a missing event header, an unexpected content type, a payload lacking what the
 * event needs. Each gets the reference's answer and posts nothing; text from the payload stays
 * inside the Markdown the message puts it in.
 */
t.test('git webhooks: bad input', async (t) => {
  const ts = await startTestServer(t);
  await ts.request('POST', '/users/me/subscriptions', { params: { subscriptions: [{ name: 'code' }] } });
  const narrow = [{ operator: 'channel', operand: 'code' }];
  const json = { 'content-type': 'application/json' };
  const bots: Record<string, { apiKey: string }> = {};
  const post = async (integration: string, body: string, headers: Record<string, string> = json, query: Record<string, string> = {}) => {
    bots[integration] ??= await webhookBot(ts, integration);
    return postRaw(ts, `/api/v1/external/${integration}`, { api_key: bots[integration].apiKey, stream: 'code', ...query }, body, headers);
  };
  const lastId = async () => (await newest(ts, narrow, 1)).at(-1)?.id ?? 0;

  const integrations: [string, string, Record<string, string>][] = [
    ['github', fixtureText('github', 'push__1_commit'), { 'X-GitHub-Event': 'push' }],
    ['gitlab', fixtureText('gitlab', 'push_hook'), { 'X-Gitlab-Event': 'Push Hook' }],
    ['gitea', fixtureText('gitea', 'push__5_commits'), { 'X-Gitea-Event': 'push' }],
    ['gogs', fixtureText('gogs', 'push'), { 'X-Gogs-Event': 'push' }],
    ['bitbucket2', fixtureText('bitbucket2', 'push'), {}],
    ['bitbucket3', fixtureText('bitbucket3', 'repo_push_update_single_branch'), {}],
    ['azuredevops', fixtureText('azuredevops', 'code_push'), {}],
  ];

  t.test('a missing or malformed body is "Malformed JSON" and posts nothing', async (t) => {
    const before = await lastId();
    for (const [integration, , headers] of integrations) {
      for (const body of ['', 'not json', '{"truncated": ']) {
        const res = await post(integration, body, { ...json, ...headers });
        t.same([res.status, res.body.result, res.body.msg], [400, 'error', 'Malformed JSON'], `${integration}: ${JSON.stringify(body)}`);
      }
    }
    t.equal(await lastId(), before, 'nothing posted');
  });

  t.test('an event the integration does not handle: UNSUPPORTED_WEBHOOK_EVENT_TYPE with status 200', async (t) => {
    const before = await lastId();
    const cases: [string, string, Record<string, string>, string, string][] = [
      ['github', '{"action": "frobnicated"}', { 'X-GitHub-Event': 'frobnicate' }, 'GitHub', 'frobnicate:frobnicated'],
      ['github', '{}', { 'X-GitHub-Event': 'frobnicate' }, 'GitHub', 'frobnicate:???'],
      ['github', '{"action": "milestoned"}', { 'X-GitHub-Event': 'pull_request' }, 'GitHub', 'pull_request:milestoned'],
      ['github', '{"action": "renamed"}', { 'X-GitHub-Event': 'team' }, 'GitHub', 'unsupported team action renamed'],
      ['gitlab', '{}', { 'X-Gitlab-Event': 'Emoji Hook' }, 'GitLab', 'Emoji Hook'],
      ['gitlab', '{"object_attributes": {"action": "frobnicate"}}', { 'X-Gitlab-Event': 'Issue Hook' }, 'GitLab', 'Issue Hook frobnicate'],
      ['gitea', '{"repository": {"name": "r"}}', { 'X-Gitea-Event': 'delete' }, 'Gitea', 'delete'],
      ['gogs', '{"repository": {"name": "r"}}', { 'X-Gogs-Event': 'fork' }, 'Gogs', 'fork'],
      ['bitbucket2', '{"pullrequest": {}}', { 'X-Event-Key': 'pullrequest:frobnicated' }, 'Bitbucket2', 'pullrequest:frobnicated'],
      ['bitbucket2', '{}', { 'X-Event-Key': 'repo:transfer' }, 'Bitbucket2', 'repo:transfer'],
      ['bitbucket3', '{"eventKey": "mirror:repo_synchronized"}', {}, 'Bitbucket3', 'mirror:repo_synchronized'],
      ['azuredevops', '{"eventType": "workitem.created"}', {}, 'AzureDevOps', 'workitem.created'],
    ];
    for (const [integration, body, headers, name, event] of cases) {
      const res = await post(integration, body, { ...json, ...headers });
      t.same(
        [res.status, res.body],
        // A 2xx error is a "success" in the reference's answer (json_response_from_error).
        [200, { result: 'success', msg: `The '${event}' event isn't currently supported by the ${name} webhook; ignoring`, code: 'UNSUPPORTED_WEBHOOK_EVENT_TYPE', webhook_name: name, event_type: event }],
        `${integration}: ${event}`,
      );
    }
    t.equal(await lastId(), before, 'nothing posted');
  });

  t.test('a missing event header: MISSING_HTTP_EVENT_HEADER', async (t) => {
    const cases: [string, string, string][] = [
      ['github', fixtureText('github', 'push__1_commit'), 'X-GitHub-Event'],
      ['gitlab', fixtureText('gitlab', 'push_hook'), 'X-GitLab-Event'],
      ['gitea', fixtureText('gitea', 'push__5_commits'), 'X-Gitea-Event'],
      ['gogs', fixtureText('gogs', 'push'), 'X-Gogs-Event'],
      // Bitbucket needs the header only for pull requests (and events its payload does not tell).
      ['bitbucket2', fixtureText('bitbucket2', 'pull_request_created_or_updated'), 'X-Event-Key'],
      ['bitbucket3', '{"changes": []}', 'X-Event-Key'],
    ];
    const before = await lastId();
    for (const [integration, body, header] of cases) {
      const res = await post(integration, body);
      t.same([res.status, res.body], [400, { result: 'error', msg: `Missing the HTTP event header '${header}'`, code: 'MISSING_HTTP_EVENT_HEADER', header }], integration);
    }
    t.equal(await lastId(), before, 'nothing posted');
  });

  t.test('a payload without what its event needs is refused, not a server error', async (t) => {
    const before = await lastId();
    for (const [integration, body, headers] of integrations) {
      const payload = JSON.parse(body);
      delete payload.repository;
      delete payload.resource;
      delete payload.ref;
      delete payload.changes;
      delete payload.push;
      const res = await post(integration, JSON.stringify(payload), { ...json, ...headers });
      t.ok(res.status === 400 || res.body.code === 'UNSUPPORTED_WEBHOOK_EVENT_TYPE', `${integration}: ${res.status} ${res.body.msg}`);
      t.equal(res.body.result, 'error', `${integration}: an error`);
    }
    t.equal(await lastId(), before, 'nothing posted');
  });

  t.test('a JSON body sent as a form is read as JSON, as the reference reads it', async (t) => {
    for (const type of ['application/x-www-form-urlencoded', 'application/x-www-form-urlencoded; charset=utf-8']) {
      const before = await lastId();
      const res = await post('gogs', fixtureText('gogs', 'push'), { 'content-type': type, 'X-Gogs-Event': 'push' });
      t.equal(res.body.result, 'success', `${type}: accepted`);
      const [msg] = await newest(ts, narrow, 1);
      t.ok(msg.id > before && msg.subject === 'try-git / master', `${type}: posted`);
    }
  });

  t.test('GitHub\'s form mode: the JSON in a `payload` field', async (t) => {
    const before = await lastId();
    const body = new URLSearchParams({ payload: fixtureText('github', 'push__1_commit') }).toString();
    const res = await post('github', body, { 'content-type': 'application/x-www-form-urlencoded', 'X-GitHub-Event': 'push' });
    t.equal(res.body.result, 'success', 'accepted');
    const [msg] = await newest(ts, narrow, 1);
    t.ok(msg.id > before && msg.subject === 'public-repo / changes', 'posted');
  });

  t.test('URL options with values that are not booleans', async (t) => {
    const push = fixtureText('github', 'push__1_commit');
    const invalid = await post('github', push, { ...json, 'X-GitHub-Event': 'push' }, { ignore_private_repositories: 'yes' });
    t.same([invalid.status, invalid.body.msg], [400, 'ignore_private_repositories is not valid JSON'], 'not JSON');
    const notBool = await post('gitlab', fixtureText('gitlab', 'push_hook'), { ...json, 'X-Gitlab-Event': 'Push Hook' }, { use_merge_request_title: '1' });
    t.same([notBool.status, notBool.body.msg], [400, 'use_merge_request_title is not a boolean'], 'not a boolean');
  });

  t.test('quoted text from the payload cannot close its quote', async (t) => {
    const comment = JSON.parse(fixtureText('github', 'issue_comment'));
    comment.comment.body = 'Before\n~~~\n**not bold outside** @**all** [link](https://example.com)\n~~~~\nAfter';
    const res = await post('github', JSON.stringify(comment), { ...json, 'X-GitHub-Event': 'issue_comment' });
    t.equal(res.body.result, 'success', 'accepted');
    const [raw] = await newest(ts, narrow, 1);
    t.match(raw.content, /\n~~~~~ quote\nBefore\n~~~\n[^]*\nAfter\n~~~~~$/, 'a fence longer than any in the text');
    const html = (await ts.request('GET', '/messages', { params: { anchor: 'newest', num_before: 1, num_after: 0, narrow } })).body.messages[0].content as string;
    t.match(html, /<blockquote>[^]*After[^]*<\/blockquote>\s*$/, 'the text ends inside the quote');
    const plain = JSON.parse(fixtureText('github', 'issue_comment'));
    await post('github', JSON.stringify(plain), { ...json, 'X-GitHub-Event': 'issue_comment' });
    t.match((await newest(ts, narrow, 1))[0].content, /\n~~~ quote\nYou are totally right! I'll get this fixed right away.\n~~~$/, 'text without fences keeps the reference\'s ~~~');
  });

  t.test('only_events and exclude_events filter on the reference\'s event names', async (t) => {
    const before = await lastId();
    const issue = fixtureText('gitlab', 'issue_hook__issue_created_without_assignee');
    const headers = { ...json, 'X-Gitlab-Event': 'Issue Hook' };
    await post('gitlab', issue, headers, { exclude_events: JSON.stringify(['Issue Hook *']) });
    await post('gitlab', issue, headers, { only_events: JSON.stringify(['Push Hook']) });
    t.equal(await lastId(), before, 'filtered out');
    await post('gitlab', issue, headers, { only_events: JSON.stringify(['Issue Hook open']) });
    t.ok((await lastId()) > before, 'let through');
  });

  t.test('without a channel, the message goes to the bot\'s owner', async (t) => {
    bots.gitea ??= await webhookBot(ts, 'gitea');
    const res = await postRaw(ts, '/api/v1/external/gitea', { api_key: bots.gitea.apiKey }, fixtureText('gitea', 'create__branch'), { ...json, 'X-Gitea-Event': 'create' });
    t.equal(res.body.result, 'success', 'accepted');
    const [dm] = await newest(ts, [{ operator: 'is', operand: 'dm' }], 1);
    t.equal(dm.content, 'kostekIV created [test-branch](https://try.gitea.io/kostekIV/test/src/test-branch) branch.', 'a direct message with the reference\'s text');
  });
});
