import type { Command } from 'commander';
import { ROLE_NAMES, runUserCommand, type CommandResult, type UserCommand } from '../host/user-commands.js';
import { cliConfig, CliError, findRealm, realmLabel, withRealmShard, withWriteAccess } from './context.js';
import { runningServer } from './server-client.js';

/**
 * `stoa user ...`: list, create, set-role, deactivate, reactivate, reset-password, unlock,
 * set-email. Each runs in the realm's shard (host/user-commands.ts): through the running server
 * when there is one (its admin socket), else in this process on the stores, under the lock.
 */
async function run(realm: string, command: UserCommand): Promise<{ value: Record<string, unknown>; viaServer: boolean }> {
  const config = cliConfig();
  const server = runningServer(config.dataDir);
  let result: CommandResult;
  if (server) {
    result = await server.post<CommandResult>('/user', { realm, command: command.name === 'unlock' ? { ...command, inServer: true } : command });
  } else {
    result = await withWriteAccess(config, (directory) => withRealmShard(config, findRealm(directory, realm), (shard, state) => runUserCommand(shard, state, command)));
  }
  if (!result.ok) throw new CliError(result.error);
  return { value: result.value, viaServer: server !== null };
}

function table(rows: string[][]): string {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)));
  return rows.map((row) => row.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd()).join('\n');
}

interface RealmOption {
  realm: string;
}

const realmOption = (cmd: Command) => cmd.requiredOption('--realm <subdomain>', "the realm's subdomain ('' for the root realm)");
const userOption = (cmd: Command) => realmOption(cmd).requiredOption('--user <email or id>', 'the account');

export function userCommands(program: Command): void {
  const user = program.command('user').description('manage user accounts (through the running server when there is one)');

  realmOption(user.command('list').description('list the accounts of a realm: id, email, name, role, status'))
    .option('--json', 'print JSON')
    .action(async (opts: RealmOption & { json?: boolean }) => {
      const { value } = await run(opts.realm, { name: 'list' });
      const users = value.users as { id: number; email: string; full_name: string; role: string; active: boolean; bot: boolean }[];
      if (opts.json) return console.log(JSON.stringify(users, null, 2));
      console.log(table([['ID', 'EMAIL', 'NAME', 'ROLE', 'STATUS'], ...users.map((u) => [String(u.id), u.email, u.full_name, u.bot ? `${u.role} (bot)` : u.role, u.active ? 'active' : 'deactivated'])]));
    });

  realmOption(user.command('create').description('create a user in a realm and print their API key'))
    .requiredOption('--email <email>', "the user's email (their login)")
    .requiredOption('--full-name <full name>', "the user's full name")
    .option('--role <role>', `one of ${Object.keys(ROLE_NAMES).join(', ')}`, 'member')
    .option('--password <password>', 'their password (default: a generated one, printed)')
    .action(async (opts: RealmOption & { email: string; fullName: string; role: string; password?: string }) => {
      const { value } = await run(opts.realm, { name: 'create', email: opts.email, fullName: opts.fullName, role: opts.role, password: opts.password });
      const lines = [`Created ${opts.role} ${value.email} (user id ${value.id}) in ${realmLabel(opts.realm)}`, `  email:    ${value.email}`];
      if (value.password !== undefined) lines.push(`  password: ${value.password}`);
      lines.push(`  API key:  ${value.api_key}`);
      console.log(lines.join('\n'));
    });

  userOption(user.command('set-role').description('change an account\'s role (the only owner keeps theirs)'))
    .requiredOption('--role <role>', `one of ${Object.keys(ROLE_NAMES).join(', ')}`)
    .action(async (opts: RealmOption & { user: string; role: string }) => {
      const { value } = await run(opts.realm, { name: 'setRole', user: opts.user, role: opts.role });
      console.log(value.changed ? `${value.email} is now ${opts.role}` : `${value.email} was already ${opts.role}`);
    });

  for (const [name, active] of [['deactivate', false], ['reactivate', true]] as const) {
    userOption(user.command(name).description(active ? 'reactivate a deactivated account' : 'deactivate an account (and its bots); its API key stops working'))
      .action(async (opts: RealmOption & { user: string }) => {
        const { value } = await run(opts.realm, { name, user: opts.user });
        const state = active ? 'active' : 'deactivated';
        console.log(value.changed ? `${value.email} is now ${state}` : `${value.email} was already ${state}`);
      });
  }

  userOption(user.command('reset-password').description('print a one-time link that sets a new password (for someone locked out)'))
    .action(async (opts: RealmOption & { user: string }) => {
      const { value } = await run(opts.realm, { name: 'resetPassword', user: opts.user });
      const until = new Date((value.expires_at as number) * 1000).toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC');
      console.log(`One-time password reset link for ${value.email}, valid until ${until}:\n  ${value.link}`);
    });

  userOption(user.command('unlock').description('clear an account\'s failed-login limit (kept in the running server\'s memory)'))
    .action(async (opts: RealmOption & { user: string }) => {
      const { value, viaServer } = await run(opts.realm, { name: 'unlock', user: opts.user, inServer: false });
      if (!viaServer) console.log(`No server is running: ${value.email} has no failed-login limit to clear (it lives in the server's memory; a start begins with none)`);
      else console.log(value.was_locked ? `${value.email} may log in again: the failed-login limit is cleared` : `${value.email} was not locked out; the failed-login count is cleared`);
    });

  userOption(user.command('set-email').description('change an account\'s email address (its login); the owner\'s zuliprc follows'))
    .requiredOption('--new-email <email>', 'the new address')
    .action(async (opts: RealmOption & { user: string; newEmail: string }) => {
      const { value } = await run(opts.realm, { name: 'setEmail', user: opts.user, newEmail: opts.newEmail });
      if (!value.changed) return console.log(`${value.email} is already the address`);
      console.log(`${value.old} is now ${value.email}${value.zuliprc ? `\n  ${value.zuliprc} updated` : ''}`);
    });
}
