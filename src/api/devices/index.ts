import { me, operation, type OpContext } from '../operation.js';
import { checkAppId, checkHuman, doAddDevice, doRemoveDevice, requireToken, validateToken, type DeviceKind } from './actions.js';

interface DeviceParams {
  token?: string;
  appid?: string;
}

// token and appid are not `required` in the schemas: the reference refuses bots before it looks
// at parameters, so their absence is reported by the handlers, after that check.
const addParams = { properties: { token: { type: 'string' }, appid: { type: 'string' } } };
const removeParams = { properties: { token: { type: 'string' } } };

function add(kind: DeviceKind) {
  return operation<DeviceParams>({
    auth: 'user',
    params: kind === 'apns' ? addParams : removeParams,
    handler: async (ctx: OpContext<DeviceParams>) => {
      const user = me(ctx);
      checkHuman(user);
      const token = requireToken(ctx.params.token);
      const appid = kind === 'apns' ? checkAppId(ctx.params.appid) : null;
      validateToken(token, kind);
      await doAddDevice(ctx.shard, ctx.realm, user, kind, token, appid);
      return {};
    },
  });
}

function remove(kind: DeviceKind) {
  return operation<DeviceParams>({
    auth: 'user',
    params: removeParams,
    handler: async (ctx: OpContext<DeviceParams>) => {
      const user = me(ctx);
      checkHuman(user);
      const token = requireToken(ctx.params.token);
      validateToken(token, kind);
      await doRemoveDevice(ctx.shard, ctx.realm, user, kind, token);
      return {};
    },
  });
}

/** Mobile push registration: POST/DELETE /users/me/apns_device_token and /users/me/android_gcm_reg_id. */
export const operations = {
  'devices.addApns': add('apns'),
  'devices.removeApns': remove('apns'),
  'devices.addGcm': add('gcm'),
  'devices.removeGcm': remove('gcm'),
};
