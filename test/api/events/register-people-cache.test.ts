import t from 'tap';
import { createUser, startTestServer } from '../../helpers/server.js';

/**
 * realm_users, realm_non_active_users and cross_realm_bots are served from JSON cached on the
 * realm. Every kind of change to a user must show in the next POST /register, for both
 * client_gravatar variants.
 */
t.test('POST /register: the cached people lists follow every user change', async (t) => {
  const ts = await startTestServer(t);
  const ann = await createUser(ts, 'ann@example.com', 'Ann');
  const ben = await createUser(ts, 'ben@example.com', 'Ben');
  const asOwner = ts.as(ts.owner);
  const people = async (clientGravatar: boolean) => {
    const body = (await ts.as(ann)('POST', '/register', { params: { fetch_event_types: ['realm_user'], client_gravatar: clientGravatar } })).body;
    const find = (list: { user_id: number }[]) => list.find((u) => u.user_id === ben.userId) as Record<string, unknown> | undefined;
    return { active: find(body.realm_users), inactive: find(body.realm_non_active_users), count: body.realm_users.length };
  };
  const both = async (what: string, check: (p: Awaited<ReturnType<typeof people>>) => boolean) => {
    for (const gravatar of [true, false]) {
      const p = await people(gravatar);
      t.ok(check(p), `${what} (client_gravatar ${gravatar})`);
    }
  };

  const before = await people(true);
  await both('a first register fills the cache', (p) => p.active?.full_name === 'Ben');
  await createUser(ts, 'cy@example.com', 'Cy');
  await both('a new user is listed', (p) => p.count === before.count + 1);
  await asOwner('PATCH', `/users/${ben.userId}`, { params: { full_name: 'Benjamin' } });
  await both('a rename by an administrator', (p) => p.active?.full_name === 'Benjamin');
  await ts.as(ben)('PATCH', '/settings', { params: { full_name: 'Ben again' } });
  await both('a rename in the user\'s own settings', (p) => p.active?.full_name === 'Ben again');
  await ts.as(ben)('PATCH', '/settings', { params: { timezone: 'Europe/Paris' } });
  await both('a time zone', (p) => p.active?.timezone === 'Europe/Paris');
  await asOwner('PATCH', `/users/${ben.userId}`, { params: { role: 200 } });
  await both('a role', (p) => p.active?.role === 200 && p.active?.is_admin === true);
  await asOwner('DELETE', `/users/${ben.userId}`);
  await both('a deactivation moves them to realm_non_active_users', (p) => p.active === undefined && p.inactive?.full_name === 'Ben again');
  await asOwner('POST', `/users/${ben.userId}/reactivate`);
  await both('a reactivation moves them back', (p) => p.inactive === undefined && p.active?.full_name === 'Ben again');
});
