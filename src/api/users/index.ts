import { ROLE } from '../../model/types.js';
import { me, operation } from '../operation.js';
import { userView } from './views.js';

/** GET /users/me */
const getMe = operation({
  auth: 'user',
  handler: (ctx) => {
    const user = me(ctx);
    const owners = [...ctx.realm.users.values()].filter((u) => u.isActive && u.role === ROLE.owner);
    return {
      ...userView(user),
      profile_data: {},
      max_message_id: -1,
      is_last_owner: user.role === ROLE.owner && owners.length === 1,
    };
  },
});

export const operations = {
  'users.me': getMe,
};
