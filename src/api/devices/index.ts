import { ApiError } from '../../lib/errors.js';
import { log } from '../../lib/log.js';
import { me, operation, type OpContext } from '../../api-kit/operation.js';
import { pushConfigured, sendTestNotification } from '../notify/push/test-notification.js';
import { checkAppId, checkHuman, devicesOf, doAddDevice, doRemoveDevice, requireToken, validateToken, type DeviceKind } from './actions.js';

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

/**
 * POST /mobile_push/test_notification (feature level 217): a test notification to the device
 * `token` names, or to all of the user's devices, through the push notification service once
 * the server is registered (api/notify/push/test-notification.ts). Until then, as the reference
 * does when nothing is configured, it is dropped once the device is known; an unknown token is
 * the reference's error.
 */
const testNotification = operation<{ token?: string }>({
  auth: 'user',
  params: { properties: { token: { type: 'string' } } },
  handler: async (ctx) => {
    const user = me(ctx);
    const all = devicesOf(ctx.shard, ctx.realm, user.id);
    const token = ctx.params.token;
    const devices = token === undefined ? all : all.filter((d) => d.token === token);
    if (token !== undefined && devices.length === 0) throw new ApiError('Device not recognized', { code: 'INVALID_PUSH_DEVICE_TOKEN' });
    if (pushConfigured(ctx.shard)) await sendTestNotification(ctx.shard, ctx.realm, user, devices);
    else log.info({ realm: ctx.realm.id, user: user.id, devices: devices.length }, 'test push notification dropped: push notifications are not configured');
    return {};
  },
});

/** Mobile push registration: POST/DELETE /users/me/apns_device_token and /users/me/android_gcm_reg_id. */
export const operations = {
  'devices.testNotification': testNotification,
  'devices.addApns': add('apns'),
  'devices.removeApns': remove('apns'),
  'devices.addGcm': add('gcm'),
  'devices.removeGcm': remove('gcm'),
};
