import type { Command } from 'commander';
import { doCreateUser } from '../api/users/actions.js';
import { generatePassword } from '../lib/auth.js';
import { ROLE, type Role } from '../model/types.js';
import { cliConfig, CliError, findRealm, realmLabel, withRealmShard, withWriteAccess } from './context.js';

/** The CLI's role names, as the reference's management commands spell them. */
const ROLES: Record<string, Role> = {
  owner: ROLE.owner,
  admin: ROLE.administrator,
  moderator: ROLE.moderator,
  member: ROLE.member,
  guest: ROLE.guest,
};

interface CreateOptions {
  realm: string;
  email: string;
  fullName: string;
  role: string;
  password?: string;
}

async function create(opts: CreateOptions): Promise<void> {
  const role = ROLES[opts.role];
  if (role === undefined) throw new CliError(`invalid role "${opts.role}": use one of ${Object.keys(ROLES).join(', ')}`);
  const config = cliConfig();
  const password = opts.password ?? generatePassword();
  const user = await withWriteAccess(config, (directory) =>
    withRealmShard(config, findRealm(directory, opts.realm), (shard, realm) =>
      doCreateUser(shard, realm, { email: opts.email, fullName: opts.fullName, role, password }),
    ),
  );
  const lines = [`Created ${opts.role} ${user.email} (user id ${user.id}) in ${realmLabel(opts.realm)}`, `  email:    ${user.email}`];
  if (opts.password === undefined) lines.push(`  password: ${password}`);
  lines.push(`  API key:  ${user.apiKey}`);
  console.log(lines.join('\n'));
}

export function userCommands(program: Command): void {
  const user = program.command('user').description('manage user accounts');

  user
    .command('create')
    .description('create a user in a realm and print their API key')
    .requiredOption('--realm <subdomain>', "the realm's subdomain ('' for the root realm)")
    .requiredOption('--email <email>', "the user's email (their login)")
    .requiredOption('--full-name <full name>', "the user's full name")
    .option('--role <role>', `one of ${Object.keys(ROLES).join(', ')}`, 'member')
    .option('--password <password>', 'their password (default: a generated one, printed)')
    .action(create);
}
