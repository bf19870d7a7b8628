import type { Command } from 'commander';
import { ImportError } from '../import/errors.js';
import { runImport } from '../import/job.js';
import { consoleProgress } from '../import/progress.js';
import { cliConfig, CliError, withWriteAccess } from './context.js';

/**
 * `stoa realm import <file>`: a new organization from the reference's export, a Slack export or
 * a Mattermost bulk export (src/import/). Like every write command it needs the server stopped
 * (the server holds realms in memory and is the stores' only writer); run it again after an
 * interruption and it continues.
 */
async function importCommand(file: string, opts: { subdomain?: string; slackThreads?: boolean }): Promise<void> {
  const config = cliConfig(true);
  const progress = consoleProgress();
  try {
    const result = await withWriteAccess(config, (directory) => runImport(config, directory, file, { subdomain: opts.subdomain, slackThreads: opts.slackThreads, progress }));
    progress.done(`Imported ${result.kind} export into organization "${result.subdomain}" at ${result.url}: ${result.users} users, ${result.messages} messages`);
    if (result.passwordsKept > 0) console.log(`  ${result.passwordsKept} people keep their passwords`);
    if (result.needPasswordReset.length > 0) {
      console.log(`  ${result.needPasswordReset.length} people have no password here; they set one through the password reset page, ${result.url}/accounts/password/reset/ :`);
      for (const email of result.needPasswordReset.slice(0, 20)) console.log(`    ${email}`);
      if (result.needPasswordReset.length > 20) console.log(`    ... and ${result.needPasswordReset.length - 20} more`);
    }
  } catch (err) {
    if (err instanceof ImportError) throw new CliError(`import refused: ${err.message}`);
    throw err;
  }
}

export function importCommands(program: Command): void {
  const realm = program.commands.find((c) => c.name() === 'realm');
  if (!realm) throw new Error('the realm command must be registered first');
  realm
    .command('import <file>')
    .description("create an organization from an export: the reference's export tarball (.tar.gz), a Slack export (.zip) or a Mattermost bulk export (.zip or directory); resumable: run it again after an interruption")
    .option('--subdomain <subdomain>', "the new organization's subdomain (default: the export's)")
    .option('--slack-threads', 'Slack: give each thread a topic of its own, as the reference\'s --convert-slack-threads')
    .action(importCommand);
}
