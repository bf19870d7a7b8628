import { ApiError } from '../lib/errors.js';
import { generatePassword } from '../lib/auth.js';
import { auditLog } from '../lib/log.js';
import type { RealmState } from '../model/realm-state.js';
import { ROLE, type Role, type UserRecord } from '../model/types.js';
import { flush, outbox } from '../shard/outbox.js';
import type { Shard } from '../shard/shard.js';
import { doChangeUserEmail } from '../api/email-change/actions.js';
import { createResetToken, resetLink } from '../api/password-reset/tokens.js';
import { attemptKey, limiterOf } from '../api/server/fetch-api-key.js';
import { isValidEmail } from '../model/email-addresses.js';
import { activeHumanOwners, checkCreateUser, doCreateUser, doDeactivateUser, doReactivateUser } from '../api/users/actions.js';
import { changeRole } from '../api/users/update.js';

/**
 * The admin CLI's `stoa user ...` commands, run in the realm's shard (a folder above the
 * features whose actions they call: users, email-change, password-reset): through the running
 * server (its admin socket, front/admin-socket.ts, then ShardPool.admin), or in the CLI's own
 * process when no server runs. The same code either way, with the checks an administrator's
 * API request would meet where they protect the organization (the last owner stays), and
 * without those that protect it from its members (the operator may do anything).
 */
export const ROLE_NAMES: Record<string, Role> = { owner: ROLE.owner, admin: ROLE.administrator, moderator: ROLE.moderator, member: ROLE.member, guest: ROLE.guest };
const roleName = (role: Role) => Object.entries(ROLE_NAMES).find(([, r]) => r === role)?.[0] ?? String(role);

export type UserCommand =
  | { name: 'list' }
  | { name: 'create'; email: string; fullName: string; role: string; password?: string }
  | { name: 'setRole'; user: string; role: string }
  | { name: 'deactivate'; user: string }
  | { name: 'reactivate'; user: string }
  | { name: 'resetPassword'; user: string }
  | { name: 'unlock'; user: string; inServer: boolean }
  | { name: 'setEmail'; user: string; newEmail: string };

/** An answer the CLI prints; `error` is a refusal, one line. */
export type CommandResult = { ok: true; value: Record<string, unknown> } | { ok: false; error: string };

class Refused extends Error {}

function person(realm: RealmState, key: string): UserRecord {
  const user = /^\d+$/.test(key) ? realm.users.get(Number(key)) : realm.userByEmail(key.trim());
  if (!user || user.isSystemBot) throw new Refused(`no user ${key} in this realm (see: stoa user list)`);
  return user;
}

function role(name: string): Role {
  const r = ROLE_NAMES[name];
  if (r === undefined) throw new Refused(`invalid role "${name}": use one of ${Object.keys(ROLE_NAMES).join(', ')}`);
  return r;
}

function lastOwner(realm: RealmState, user: UserRecord): boolean {
  const owners = activeHumanOwners(realm);
  return user.role === ROLE.owner && owners.length === 1 && owners[0].id === user.id;
}

function audit(realm: RealmState, event: string, fields: Record<string, unknown>): void {
  auditLog.info({ event, outcome: 'ok', realm: realm.id, actor: 'cli', ...fields }, event);
}

export async function runUserCommand(shard: Shard, realm: RealmState, cmd: UserCommand): Promise<CommandResult> {
  try {
    return { ok: true, value: await run(shard, realm, cmd) };
  } catch (err) {
    if (err instanceof Refused || err instanceof ApiError) return { ok: false, error: err.message };
    throw err;
  }
}

async function run(shard: Shard, realm: RealmState, cmd: UserCommand): Promise<Record<string, unknown>> {
  switch (cmd.name) {
    case 'list':
      return {
        users: [...realm.users.values()]
          .filter((u) => !u.isSystemBot)
          .sort((a, b) => a.id - b.id)
          .map((u) => ({ id: u.id, email: u.email, full_name: u.fullName, role: roleName(u.role), active: u.isActive, bot: u.isBot })),
      };
    case 'create': {
      const r = role(cmd.role);
      const password = cmd.password ?? generatePassword();
      checkCreateUser(realm, { email: cmd.email, fullName: cmd.fullName, role: r });
      const user = await doCreateUser(shard, realm, { email: cmd.email, fullName: cmd.fullName, role: r, password });
      audit(realm, 'account.create', { target: user.id, email: user.email, role: cmd.role });
      return { id: user.id, email: user.email, api_key: user.apiKey, ...(cmd.password === undefined ? { password } : {}) };
    }
    case 'setRole': {
      const user = person(realm, cmd.user);
      const r = role(cmd.role);
      if (user.role === r) return { email: user.email, role: cmd.role, changed: false };
      if (lastOwner(realm, user)) throw new Refused(`${user.email} is the only owner: make another owner first`);
      const out = outbox(shard);
      changeRole(shard, realm, out, user, r);
      await flush(shard, realm, out);
      audit(realm, 'account.update', { target: user.id, role: cmd.role });
      return { email: user.email, role: cmd.role, changed: true };
    }
    case 'deactivate': {
      const user = person(realm, cmd.user);
      if (!user.isActive) return { email: user.email, changed: false };
      if (lastOwner(realm, user)) throw new Refused(`${user.email} is the only owner: make another owner first`);
      await doDeactivateUser(shard, realm, user);
      audit(realm, 'account.deactivate', { target: user.id });
      return { email: user.email, changed: true };
    }
    case 'reactivate': {
      const user = person(realm, cmd.user);
      if (user.isActive) return { email: user.email, changed: false };
      await doReactivateUser(shard, realm, user);
      audit(realm, 'account.reactivate', { target: user.id });
      return { email: user.email, changed: true };
    }
    case 'resetPassword': {
      const user = person(realm, cmd.user);
      if (user.isBot) throw new Refused(`${user.email} is a bot: bots log in with their API key`);
      if (!user.isActive) throw new Refused(`${user.email} is deactivated: reactivate it first`);
      const { token, expiresAt } = await createResetToken(shard, realm, user);
      audit(realm, 'password_reset.link', { target: user.id });
      return { email: user.email, link: resetLink(realm, token), expires_at: expiresAt };
    }
    case 'unlock': {
      const user = person(realm, cmd.user);
      const key = attemptKey(realm.id, user.email);
      const locked = limiterOf(shard).retryAfter(key) > 0;
      limiterOf(shard).clear(key);
      audit(realm, 'account.unlock', { target: user.id });
      return { email: user.email, was_locked: locked, in_server: cmd.inServer };
    }
    case 'setEmail':
      return setEmail(shard, realm, person(realm, cmd.user), cmd.newEmail.trim());
  }
}

/**
 * A new address for an account (the owner the first start made with owner@stoa.invalid, say),
 * made at once: the same change as a confirmed link makes (email-change/), without the link, the
 * organization's address rules or the notice to the old address, as the reference's
 * change_user_email command makes it.
 */
async function setEmail(shard: Shard, realm: RealmState, user: UserRecord, newEmail: string): Promise<Record<string, unknown>> {
  if (!isValidEmail(newEmail)) throw new Refused(`invalid email "${newEmail}"`);
  const other = realm.userByEmail(newEmail);
  if (other && other.id !== user.id) throw new Refused(`${newEmail} is already the address of user ${other.id}`);
  const old = user.email;
  if (old === newEmail) return { old, email: newEmail, changed: false };
  const { zuliprc } = await doChangeUserEmail(shard, realm, user, newEmail);
  audit(realm, 'account.email', { target: user.id, old, email: newEmail });
  return { old, email: newEmail, changed: true, zuliprc };
}
