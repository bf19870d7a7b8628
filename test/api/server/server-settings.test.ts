import t from 'tap';
import { startTestServer } from '../../helpers/server.js';

t.test('GET /server_settings', async (t) => {
  const ts = await startTestServer(t);

  t.test('answers without authentication, with the version clients check', async (t) => {
    const res = await ts.request('GET', '/server_settings', { auth: null });
    t.equal(res.status, 200, 'status 200');
    t.equal(res.body.result, 'success', 'success envelope');
    t.type(res.body.zulip_version, 'string', 'zulip_version is present (the Python bindings need it)');
    t.ok(res.body.zulip_feature_level >= 372, 'feature level at least 372');
    t.equal(res.body.realm_url, `http://${ts.server.config.externalHost}`, 'realm_url is the root realm URL');
    t.equal(res.body.realm_uri, res.body.realm_url, 'realm_uri mirrors realm_url');
    t.equal(res.body.require_email_format_usernames, true, 'usernames are emails');
    t.equal(res.body.authentication_methods.password, true, 'password authentication is on');
  });

  t.test('reports unknown parameters', async (t) => {
    const res = await ts.request('GET', '/server_settings', { auth: null, params: { bogus: 1 } });
    t.same(res.body.ignored_parameters_unsupported, ['bogus'], 'bogus is listed as ignored');
  });
});
