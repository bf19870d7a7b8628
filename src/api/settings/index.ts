import { me, operation } from '../operation.js';
import { checkPasswordChange, checkSettingsUpdate, doUpdateSettings, type SettingsParams } from './actions.js';
import { preferenceProperties } from './params.js';

/**
 * PATCH /settings: the user's own name, password and preferences. Also serves the deprecated
 * PATCH /settings/display and /settings/notifications, which the reference made aliases of it
 * (feature level 80). The response is empty; unknown parameters are listed in
 * ignored_parameters_unsupported.
 */
const update = operation<SettingsParams>({
  auth: 'user',
  params: {
    properties: {
      full_name: { type: 'string' },
      email: { type: 'string' },
      old_password: { type: 'string' },
      new_password: { type: 'string' },
      ...preferenceProperties,
    },
  },
  handler: async (ctx) => {
    const user = me(ctx);
    const plan = checkSettingsUpdate(ctx.realm, user, ctx.params);
    if (!plan.newPassword) {
      await doUpdateSettings(ctx.shard, ctx.realm, user, plan, null);
      return {};
    }
    const hash = await checkPasswordChange(ctx.shard, ctx.realm, user, plan.newPassword);
    // Hashing yielded the thread: another request may have changed the user meanwhile.
    await doUpdateSettings(ctx.shard, ctx.realm, user, checkSettingsUpdate(ctx.realm, user, ctx.params), hash, ctx.session?.secret);
    return {};
  },
});

export const operations = {
  'settings.update': update,
};
