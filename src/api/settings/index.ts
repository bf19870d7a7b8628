import { doStartEmailChange, takeEmailChangeAllowance } from '../email-change/actions.js';
import { me, operation } from '../../api-kit/operation.js';
import { checkPasswordChange, checkSettingsUpdate, doUpdateSettings, type SettingsParams } from './actions.js';
import { preferenceProperties } from './params.js';

/**
 * PATCH /settings: the user's own name, address, password and preferences. Also serves the
 * deprecated PATCH /settings/display and /settings/notifications, which the reference made
 * aliases of it (feature level 80). The response is empty, as the reference's (a new address
 * gets a link by mail; clients tell their user to look for it); unknown parameters are listed in
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
    const { shard, realm } = ctx;
    const user = me(ctx);
    let plan = checkSettingsUpdate(realm, user, ctx.params);
    let hash: string | null = null;
    if (plan.newPassword) {
      hash = await checkPasswordChange(shard, realm, user, plan.newPassword);
      // Hashing yielded the thread: another request may have changed the user meanwhile.
      plan = checkSettingsUpdate(realm, user, ctx.params);
    }
    // Only a request that passes every check counts against the address-change allowance.
    if (plan.newEmail !== null) takeEmailChangeAllowance(shard, realm, user);
    await doUpdateSettings(shard, realm, user, plan, hash, ctx.session?.secret);
    if (plan.newEmail !== null) await doStartEmailChange(shard, realm, user, plan.newEmail);
    return {};
  },
});

export const operations = {
  'settings.update': update,
};
