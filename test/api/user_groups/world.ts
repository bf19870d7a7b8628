import { createUser } from '../../helpers/server.js';
import { startWorld, type Person, type World, type WorldOptions } from '../streams/world.js';

/**
 * The user-group tests' world: the streams tests' two realms (owner, admin, hamlet and othello
 * as members, polonius the guest, hamlet's bot), plus a moderator in the root realm, with helpers
 * that assert the status of each call.
 */
export interface GroupWorld extends World {
  moderator: Person;
  /** System group ids of the root realm, by name (role:members, ...). */
  system: Record<string, number>;
  /** A call that must succeed: its body. */
  ok(p: Person, method: string, path: string, params?: Record<string, unknown>): Promise<any>;
  /** A call that must fail with 400: its body. */
  fails(p: Person, method: string, path: string, params?: Record<string, unknown>): Promise<any>;
  /** Creates a group as `p` and returns its id. */
  create(p: Person, name: string, params?: Record<string, unknown>): Promise<number>;
  /** The group as GET /user_groups shows it (deactivated groups included). */
  group(id: number): Promise<any>;
}

export async function startGroupWorld(t: { teardown(fn: () => unknown): void }, opts: WorldOptions = {}): Promise<GroupWorld> {
  const w = await startWorld(t, opts);
  const call = async (p: Person, method: string, path: string, params: Record<string, unknown> = {}) => w.as(p)(method, path, { params });
  const ok = async (p: Person, method: string, path: string, params: Record<string, unknown> = {}) => {
    const res = await call(p, method, path, params);
    if (res.status !== 200) throw new Error(`${method} ${path} as ${p.email}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const fails = async (p: Person, method: string, path: string, params: Record<string, unknown> = {}) => {
    const res = await call(p, method, path, params);
    if (res.status !== 400) throw new Error(`${method} ${path} as ${p.email}: expected 400, got ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const mod = await createUser(w.ts, 'moderator@example.com', 'moderator');
  await ok(w.root.owner, 'PATCH', `/users/${mod.userId}`, { role: 300 });
  const moderator: Person = { email: mod.email, apiKey: mod.apiKey, userId: mod.userId };
  const groups = (await ok(w.root.owner, 'GET', '/user_groups')).user_groups as { id: number; name: string; is_system_group: boolean }[];
  const system = Object.fromEntries(groups.filter((g) => g.is_system_group).map((g) => [g.name, g.id]));
  return {
    ...w,
    moderator,
    system,
    ok,
    fails,
    create: async (p, name, params = {}) => (await ok(p, 'POST', '/user_groups/create', { name, description: `${name} team`, members: [], ...params })).group_id,
    group: async (id) => ((await ok(w.root.owner, 'GET', '/user_groups', { include_deactivated_groups: true })).user_groups as { id: number }[]).find((g) => g.id === id),
  };
}
