import t from 'tap';
import { createUser, startTestServer } from '../../helpers/server.js';
import { webhookBot } from './cases.js';

const SUPPORT = 'support@stoa.example';

/**
 * What the reference's tests do not cover: the integrations as /register lists them and as
 * POST /bots accepts them, event filtering, and bad requests, each answered as the reference
 * answers them and posting nothing.
 */

// name, display_name and all_event_types of each integration's view (10.2), none with options.
const LISTED: [string, string, string[] | null][] = [
  ['alertmanager', 'Prometheus Alertmanager', null],
  ['circleci', 'CircleCI', ['ping', 'job-completed', 'workflow-completed']],
  ['errbit', 'Errbit', null],
  ['grafana', 'Grafana', ['ok', 'pending', 'alerting', 'paused', 'firing', 'resolved']],
  ['jira', 'Jira', ['jira:issue_created', 'jira:issue_deleted', 'jira:issue_updated', 'comment_created', 'comment_updated', 'comment_deleted']],
  ['linear', 'Linear', ['issue', 'sub_issue', 'comment']],
  ['newrelic', 'New Relic', ['CREATED', 'ACTIVATED', 'CLOSED']],
  ['opsgenie', 'Opsgenie', ['AddTeam', 'UnAcknowledge', 'AddNote', 'TestAction', 'Close', 'Escalate', 'AddRecipient', 'RemoveTags', 'Acknowledge', 'Delete', 'AddTags', 'TakeOwnership', 'Create', 'AssignOwnership']],
  ['pagerduty', 'PagerDuty', ['resolved', 'assigned', 'unacknowledged', 'acknowledged', 'triggered', 'reassigned']],
  ['semaphore', 'Semaphore', ['build', 'tag', 'unknown', 'branch', 'deploy', 'pull_request']],
  ['sentry', 'Sentry', null],
  ['slack_incoming', 'Slack-compatible webhook', null],
  ['travis', 'Travis CI', ['push', 'pull_request']],
  ['uptimerobot', 'UptimeRobot', ['up', 'down']],
  ['zabbix', 'Zabbix', null],
];

t.test('incoming webhook integrations: registry, filters and bad input', async (t) => {
  const ts = await startTestServer(t, { email: { from: `Stoa <${SUPPORT}>` } });
  const h = { botKey: (await webhookBot(ts, 'errbit')).apiKey };
  await ts.request('POST', '/users/me/subscriptions', { params: { subscriptions: [{ name: 'ops' }] } });

  async function post(integration: string, query: Record<string, string>, body: string, contentType = 'application/json') {
    const url = `http://127.0.0.1:${ts.port}/api/v1/external/${integration}?${new URLSearchParams({ api_key: h.botKey, stream: 'ops', ...query })}`;
    const res = await fetch(url, { method: 'POST', body, headers: { 'content-type': contentType, host: ts.server.config.externalHost } });
    return { status: res.status, body: await res.json() };
  }
  async function newestId(narrow: unknown[] = []): Promise<number | undefined> {
    const res = await ts.request('GET', '/messages', { params: { anchor: 'newest', num_before: 1, num_after: 0, narrow } });
    return res.body.messages[0]?.id;
  }
  const inOps = [{ operator: 'channel', operand: 'ops' }];

  t.test('/register lists each integration with its event types', async (t) => {
    const reg = await ts.request('POST', '/register', { params: { fetch_event_types: ['realm_incoming_webhook_bots'] } });
    t.equal(reg.status, 200, 'register answers (its shape checked against the 10.2 description)');
    const listed = reg.body.realm_incoming_webhook_bots as any[];
    const names = listed.map((i) => i.name);
    t.same(names, [...names].sort(), 'by name, as the reference lists them');
    // 10.2 lists the URL options of the web app's "Generate URL" form as config_options.
    const branches = { key: 'branches', label: '', validator: 'check_string' };
    t.same(listed.find((i) => i.name === 'github').config_options, [branches, { key: 'ignore_private_repositories', label: 'Exclude notifications from private repositories', validator: 'check_bool' }], 'GitHub\'s options');
    for (const name of ['gitlab', 'gitea', 'gogs', 'bitbucket2', 'bitbucket3', 'azuredevops']) t.same(listed.find((i) => i.name === name).config_options, [branches], `${name}: branches`);
    for (const [name, display, events] of LISTED) {
      t.same(
        listed.find((i) => i.name === name),
        { name, display_name: display, all_event_types: events, config_options: [] },
        `${name}: the reference's display name and event types`,
      );
    }
  });

  t.test('POST /bots takes each integration as an incoming webhook bot\'s service', async (t) => {
    for (const [name] of LISTED) {
      const res = await ts.request('POST', '/bots', { params: { full_name: `${name} bot`, short_name: `svc-${name.replace('_', '-')}`, bot_type: 2, service_name: name, config_data: { note: 'kept' } } });
      t.equal(res.status, 200, `${name}: accepted, with config_data`);
    }
    const bad = await ts.request('POST', '/bots', { params: { full_name: 'Nope', short_name: 'nope', bot_type: 2, service_name: 'slack' } });
    t.same([bad.status, bad.body.msg], [400, "Invalid integration 'slack'."], 'an integration this server does not have is refused');
  });

  t.test('only_events and exclude_events filter by the integration\'s event types', async (t) => {
    const alert = JSON.stringify({ action: 'AddNote', integrationName: 'Ops', alert: { alertId: 'a1', note: 'n' } });
    const before = await newestId(inOps);
    const filters: Record<string, string>[] = [{ exclude_events: '["AddNote"]' }, { only_events: '["Close","Create"]' }, { exclude_events: '["Add*"]' }];
    for (const query of filters) {
      const res = await post('opsgenie', query, alert);
      t.equal(res.body.result, 'success', `${JSON.stringify(query)}: accepted`);
    }
    t.equal(await newestId(inOps), before, 'and nothing posted');
    const kept = await post('opsgenie', { only_events: '["Add[NT]*"]' }, alert);
    t.equal(kept.body.result, 'success', 'a matching only_events pattern');
    const id = await newestId(inOps);
    t.not(id, before, 'posts');
  });

  t.test('bad bodies get the reference\'s errors and post nothing', async (t) => {
    const before = await newestId(inOps);
    const cases: [string, Record<string, string>, string, string, number, string][] = [
      ['errbit', {}, '{}', 'application/json', 400, "request['problem'] is missing"],
      ['errbit', {}, '{"problem": {"app_name": 5}}', 'application/json', 400, "request['problem']['app_name'] is not a string"],
      ['grafana', {}, 'not json', 'application/x-www-form-urlencoded', 400, 'Malformed JSON'],
      ['sentry', {}, '', 'application/json', 400, 'Malformed JSON'],
      ['travis', {}, 'other=1', 'application/x-www-form-urlencoded', 400, "Missing 'payload' argument"],
      ['travis', {}, 'payload=%7Bnot', 'application/x-www-form-urlencoded', 400, 'payload is not valid JSON'],
      ['newrelic', {}, JSON.stringify({ issueUrl: 'u', title: 't', priority: 'HIGH', totalIncidents: 1, state: 'CLOSED', createdAt: 'soon', updatedAt: 1, alertPolicyNames: [], alertConditionNames: [] }), 'application/json', 400, 'The newrelic webhook expects time in milliseconds.'],
    ];
    for (const [integration, query, body, type, status, msg] of cases) {
      const res = await post(integration, query, body, type);
      t.same([res.status, res.body.result, res.body.msg], [status, 'error', msg], `${integration} ${JSON.stringify(body).slice(0, 40)}: ${msg}`);
    }
    t.equal(await newestId(inOps), before, 'nothing posted');
  });

  t.test('events the reference does not handle answer its 2xx "success" with the code', async (t) => {
    const before = await newestId(inOps);
    const linear = await post('linear', {}, JSON.stringify({ type: 'Document', action: 'create', data: {} }));
    t.same(linear, { status: 200, body: { result: 'success', msg: "The 'Document:create' event isn't currently supported by the Linear webhook; ignoring", code: 'UNSUPPORTED_WEBHOOK_EVENT_TYPE', webhook_name: 'Linear', event_type: 'Document:create' } }, 'Linear');
    const jira = await post('jira', {}, JSON.stringify({ webhookEvent: 'board_created' }));
    t.match(jira, { status: 200, body: { result: 'success', code: 'UNSUPPORTED_WEBHOOK_EVENT_TYPE', event_type: 'board_created' } }, 'Jira');
    const uptime = await post('uptimerobot', {}, JSON.stringify({ alert_type_friendly_name: 'Paused', monitor_friendly_name: 'm' }));
    t.match(uptime, { status: 200, body: { result: 'success', event_type: 'Paused' } }, 'UptimeRobot (where 10.2 failed with a server error)');
    const ignored = await post('linear', {}, JSON.stringify({ type: 'Reaction', action: 'create' }));
    t.same(ignored.body, { result: 'success', msg: '' }, 'events the reference ignores succeed silently');
    t.equal(await newestId(inOps), before, 'nothing posted');
  });

  t.test('Slack-compatible webhooks answer in Slack\'s shape', async (t) => {
    const ok = await post('slack_incoming', {}, JSON.stringify({ text: 'deployed *v2* <https://ci.example/1|log>' }));
    t.same(ok.body, { result: 'success', msg: '', ok: true }, 'ok: true, which Slack clients wait for');
    const msg = (await ts.request('GET', '/messages', { params: { anchor: 'newest', num_before: 1, num_after: 0, narrow: inOps, apply_markdown: false } })).body.messages[0];
    t.equal(msg.content, 'deployed **v2** [log](https://ci.example/1)', 'mrkdwn and links become Markdown');
    const form = await post('slack_incoming', {}, new URLSearchParams({ payload: JSON.stringify({ text: 'via form', channel: '#deploys' }) }).toString(), 'application/x-www-form-urlencoded');
    t.equal(form.status, 200, 'the payload form field');
    const missing = await post('slack_incoming', {}, '', 'text/plain');
    t.same([missing.status, missing.body], [400, { ok: false, error: "Missing 'payload' argument" }], 'errors as {ok: false, error}');
    const badBlock = await post('slack_incoming', {}, JSON.stringify({ blocks: [{ type: 'video' }] }));
    t.same([badBlock.status, badBlock.body.ok], [400, false], 'an unknown block type');
  });

  t.test('misconfigured payloads and invalid JSON tell the bot\'s owner, once a minute per bot', async (t) => {
    const member = await createUser(ts, 'watcher@example.com', 'Watcher');
    const bot = async (name: string, service: string) => (await ts.as(member)('POST', '/bots', { params: { full_name: name, short_name: name.toLowerCase().replace(' ', '-'), bot_type: 2, service_name: service } })).body.api_key as string;
    const send = (key: string, integration: string, body: string, type = 'application/json') =>
      fetch(`http://127.0.0.1:${ts.port}/api/v1/external/${integration}?api_key=${key}&stream=ops`, { method: 'POST', body, headers: { 'content-type': type, host: ts.server.config.externalHost } });
    const dms = async () => (await ts.as(member)('GET', '/messages', { params: { anchor: 'newest', num_before: 5, num_after: 0, narrow: [{ operator: 'is', operand: 'dm' }], apply_markdown: false } })).body.messages;
    const zabbix = await bot('Zabbix Watch', 'zabbix');
    const res = await send(zabbix, 'zabbix', JSON.stringify({ hostname: 'h' }));
    t.same([res.status, (await res.json()).msg], [400, 'Invalid payload'], 'refused');
    const [notice] = await dms();
    t.equal(notice.content.split('\n')[0], 'Hi there! Your bot Zabbix Watch just received a Zabbix payload that is missing', 'the owner is told, the bot named');
    t.match(notice.content, `Contact ${SUPPORT} if you`, 'with where to ask for help');
    t.equal(notice.sender_full_name, 'Notification Bot', 'by the Notification Bot');
    await send(zabbix, 'zabbix', JSON.stringify({ hostname: 'h' }));
    await send(zabbix, 'grafana', 'not json', 'application/x-www-form-urlencoded');
    t.equal((await dms()).length, 1, 'at most one notice a minute per bot');
    const grafana = await bot('Grafana Watch', 'grafana');
    const bad = await send(grafana, 'grafana', '{"alerts": [', 'application/x-www-form-urlencoded');
    t.same([bad.status, (await bad.json()).code], [400, 'INVALID_JSON'], 'a body that is not JSON');
    const json = (await dms()).at(-1);
    t.equal(json.content, "Hi there! It looks like you tried to set up the Zulip Grafana integration,\nbut didn't correctly configure the webhook to send data in the JSON format\nthat this integration expects!", 'the reference\'s invalid JSON notice');
  });
});
