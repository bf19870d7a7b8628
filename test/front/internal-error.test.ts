import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { operation } from '../../src/api-kit/operation.js';
import { doCreateRealm } from '../../src/api/realm/actions.js';
import { operations } from '../../src/host/registry.js';
import { loadConfig, resolveConfig } from '../../src/lib/config.js';
import { dispatch } from '../../src/host/dispatch.js';
import { Shard } from '../../src/shard/shard.js';

// A bug in an operation must reach the client as a fixed 500, never as the exception. The shard
// is run in-process here so that a deliberately failing operation can be registered.
t.test('dispatch: an unexpected exception is a generic 500', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'stoa-test-'));
  const config = resolveConfig(loadConfig({}, { dataDir, logLevel: 'silent' }), 0);
  const shard = Shard.open(0, config);
  t.teardown(async () => {
    await shard.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  await doCreateRealm(shard, { id: 1, subdomain: '', name: 'Test', ownerEmail: 'o@example.com', ownerFullName: 'O' });
  operations['test.boom'] = operation({
    auth: 'none',
    handler: () => {
      throw new TypeError('secret internals at /srv/stoa/file.ts:42');
    },
  });
  t.teardown(() => {
    delete operations['test.boom'];
  });

  const reply = await dispatch(shard, { kind: 'request', op: 'test.boom', realmId: 1, params: {}, pathParams: {}, userAgent: 'test', remoteAddr: '127.0.0.1' });
  t.equal(reply.status, 500, 'status 500');
  const body = JSON.parse(reply.body);
  t.equal(body.result, 'error', 'error envelope');
  t.equal(body.msg, 'Internal server error', 'a fixed message');
  t.notMatch(reply.body, /secret|stoa\/file|TypeError/, 'nothing of the exception leaks');
});
