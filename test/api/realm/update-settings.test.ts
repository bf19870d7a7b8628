import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { startTestServer } from '../../helpers/server.js';

t.test('PATCH /realm: simple settings', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'stoa-realm-test-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  let ts = await startTestServer(t, {}, { dataDir });

  t.test('an owner changes settings; the response lists what changed', async (t) => {
    const res = await ts.request('PATCH', '/realm', {
      params: { mandatory_topics: true, waiting_period_threshold: 3, name: 'Renamed', description: 'About us', digest_weekday: 4, allow_message_editing: true },
    });
    t.equal(res.status, 200, 'status 200');
    t.equal(res.body.result, 'success', 'success');
    t.equal(res.body.mandatory_topics, true, 'mandatory_topics reported with its value');
    t.equal(res.body.waiting_period_threshold, 3, 'waiting_period_threshold reported');
    t.equal(res.body.digest_weekday, 4, 'digest_weekday reported');
    t.equal(res.body.name, 'updated', 'string settings are reported as "updated"');
    t.equal(res.body.description, 'updated', 'description reported as "updated"');
    t.notOk('allow_message_editing' in res.body, 'an unchanged setting is not reported');
  });

  t.test('time limits take a positive integer or "unlimited"', async (t) => {
    let res = await ts.request('PATCH', '/realm', { params: { message_content_edit_limit_seconds: 3600, move_messages_within_stream_limit_seconds: '"unlimited"' } });
    t.equal(res.status, 200, 'accepted');
    t.equal(res.body.message_content_edit_limit_seconds, 3600, 'edit limit set to an hour');
    t.equal(res.body.move_messages_within_stream_limit_seconds, null, '"unlimited" is stored as no limit');
    res = await ts.request('PATCH', '/realm', { params: { message_content_delete_limit_seconds: 'unlimited' }, encoding: 'multipart' });
    t.equal(res.body.message_content_delete_limit_seconds, null, 'a bare unlimited (zulip-js form) is accepted too');
    for (const bad of [0, -5, 'forever']) {
      res = await ts.request('PATCH', '/realm', { params: { message_content_edit_limit_seconds: bad } });
      t.equal(res.status, 400, `${JSON.stringify(bad)} is refused`);
      t.equal(res.body.code, 'REQUEST_VARIABLE_INVALID', 'with the reference code');
      t.equal(res.body.msg, `Bad value for 'message_content_edit_limit_seconds': ${bad}`, 'and message');
      t.equal(res.body.var_name, 'message_content_edit_limit_seconds', 'naming the parameter');
    }
    res = await ts.request('PATCH', '/realm', { params: { message_retention_days: '"unlimited"' } });
    t.equal(res.body.message_retention_days, undefined, 'unlimited retention is the default: nothing changes');
    res = await ts.request('PATCH', '/realm', { params: { message_retention_days: 30 } });
    t.equal(res.body.message_retention_days, 30, 'retention set to 30 days');
  });

  t.test('bad values are refused and change nothing', async (t) => {
    const cases: [Record<string, unknown>, string][] = [
      [{ default_language: 'xx' }, "Invalid language 'xx'"],
      [{ giphy_rating: 9 }, 'Invalid giphy_rating 9'],
      [{ video_chat_provider: 3 }, 'Invalid video_chat_provider 3'],
      [{ jitsi_server_url: '"not a url"' }, 'jitsi_server_url is not an allowed_type'],
      [{ message_edit_history_visibility_policy: 'some' }, 'Invalid message_edit_history_visibility_policy'],
      [{ mandatory_topics: 'maybe' }, 'mandatory_topics is not a boolean'],
      [{ waiting_period_threshold: -1 }, 'waiting_period_threshold is too small'],
      [{ name: 'x'.repeat(41) }, 'name is too long (limit: 40 characters)'],
      [{ description: 'x'.repeat(1001) }, 'description is too long (limit: 1000 characters)'],
      [{ digest_weekday: 7 }, 'Invalid digest_weekday'],
      [{ new_stream_announcements_stream_id: 99999 }, 'Invalid channel ID'],
      [{ string_id: 'elsewhere' }, 'Must be a demo organization.'],
      [{ authentication_methods: { GitHub: true } }, "Invalid authentication method: GitHub. Valid methods are: ['Email']"],
      [{ authentication_methods: { Email: false } }, 'At least one authentication method must be enabled.'],
    ];
    for (const [params, msg] of cases) {
      // A good setting beside the bad one must not be applied either.
      const res = await ts.request('PATCH', '/realm', { params: { ...params, inline_url_embed_preview: true } });
      t.equal(res.status, 400, `${JSON.stringify(params).slice(0, 60)}: status 400`);
      t.equal(res.body.msg, msg, `message: ${msg}`);
    }
    const check = await ts.request('PATCH', '/realm', { params: { inline_url_embed_preview: false } });
    t.notOk('inline_url_embed_preview' in check.body, 'the good setting of refused requests was never applied');
  });

  t.test('jitsi_server_url takes a URL or "default"', async (t) => {
    let res = await ts.request('PATCH', '/realm', { params: { jitsi_server_url: '"https://meet.example.com"' } });
    t.equal(res.body.jitsi_server_url, 'updated', 'a URL is set');
    res = await ts.request('PATCH', '/realm', { params: { jitsi_server_url: '"default"' } });
    t.equal(res.body.jitsi_server_url, null, '"default" goes back to the server setting');
  });

  t.test('unknown parameters are listed, not lost', async (t) => {
    const res = await ts.request('PATCH', '/realm', { params: { allow_edit_history: false, bogus: 1 } });
    t.equal(res.status, 200, 'status 200');
    t.same(res.body.ignored_parameters_unsupported?.sort(), ['allow_edit_history', 'bogus'], 'both are ignored (allow_edit_history was removed at level 358)');
  });

  t.test('changes persist across a restart', async (t) => {
    await ts.close();
    ts = await startTestServer(t, {}, { dataDir });
    const res = await ts.request('PATCH', '/realm', { params: { mandatory_topics: true, waiting_period_threshold: 3, message_content_edit_limit_seconds: 3600, name: 'Renamed' } });
    t.equal(res.status, 200, 'status 200');
    t.same(Object.keys(res.body).sort(), ['msg', 'result'], 'every value was already stored: nothing changes');
    const settings = await ts.request('GET', '/server_settings', { auth: null });
    t.equal(settings.body.realm_name, 'Renamed', 'the new name is served');
    t.equal(settings.body.realm_description, 'About us', 'the new description is served');
  });
});
