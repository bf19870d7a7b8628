import type { Command } from 'commander';
import { ImportError } from '../import/errors.js';
import { runImport, type SlackReport } from '../import/job.js';
import { consoleProgress } from '../import/progress.js';
import { cliConfig, CliError, withWriteAccess } from './context.js';

/**
 * `stoa realm import <file>`: a new organization from the reference's export, a Slack export or
 * a Mattermost bulk export (src/import/). Like every write command it needs the server stopped
 * (the server holds realms in memory and is the stores' only writer); run it again after an
 * interruption and it continues (a rerun that adds a Slack token converts again, or refuses once
 * the organization is partly written: src/import/job.ts).
 *
 * A Slack export's token comes from --slack-token or STOA_SLACK_TOKEN (the variable keeps it out
 * of the shell's history and the process list); STOA_TEST_SLACK_ORIGIN is for tests only.
 */
async function importCommand(file: string, opts: { subdomain?: string; slackThreads?: boolean; slackToken?: string }): Promise<void> {
  const config = cliConfig(true);
  // Its realm id and message ids would be this store's own, not the cluster's (src/cluster/ids.ts).
  if (config.cluster) throw new CliError('imports into a cluster node are not supported: import on a single server (without STOA_ETCD), or ask for it');
  const progress = consoleProgress();
  try {
    const result = await withWriteAccess(config, (directory) =>
      runImport(config, directory, file, {
        subdomain: opts.subdomain,
        slackThreads: opts.slackThreads,
        slackToken: opts.slackToken || process.env.STOA_SLACK_TOKEN || undefined,
        slackTestOrigin: process.env.STOA_TEST_SLACK_ORIGIN || undefined,
        progress,
      }),
    );
    progress.done(`Imported ${result.kind} export into organization "${result.subdomain}" at ${result.url}: ${result.users} users, ${result.messages} messages`);
    if (result.slack) slackSummary(result.slack);
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

/** What came from Slack and what stayed there. */
function slackSummary(report: SlackReport): void {
  const { fetched, left } = report;
  if (fetched) {
    console.log(`  From Slack's API: ${fetched.users} users (avatars for ${fetched.avatars}${fetched.avatarsFailed ? `; ${fetched.avatarsFailed} could not be had` : ''}), ${fetched.emoji} custom emoji, ${fetched.icon ? 'the team icon' : 'no team icon'}; ${fetched.downloaded} of ${fetched.files} files downloaded into the organization's uploads`);
    if (fetched.usersMissing > 0) console.log(`  ${fetched.usersMissing} users the export names could not be had from Slack (users.info); their messages are left out`);
    if (fetched.failed.length > 0) {
      console.log(`  ${fetched.failed.length} files could not be downloaded; their messages keep their links to Slack:`);
      for (const f of fetched.failed.slice(0, 20)) console.log(`    ${f.name} (${f.url}): ${f.reason}`);
      if (fetched.failed.length > 20) console.log(`    ... and ${fetched.failed.length - 20} more`);
    }
    for (const e of fetched.emojiFailed.slice(0, 20)) console.log(`  custom emoji :${e.name}: not imported: ${e.reason}`);
    if (fetched.emojiFailed.length > 20) console.log(`  ... and ${fetched.emojiFailed.length - 20} more custom emoji not imported`);
  } else {
    console.log('  Without a Slack token (--slack-token or STOA_SLACK_TOKEN) nothing was fetched from Slack:');
    console.log(`    ${left.fileLinks} files Slack hosts stayed links to Slack (readable only by people signed in to that workspace)`);
    console.log(`    ${left.customReactions} reactions with custom emoji were left out; no custom emoji, team icon or avatars, and the user list (addresses) came from the export alone`);
  }
  if (fetched && left.customReactions > 0) console.log(`  ${left.customReactions} reactions with custom emoji Slack did not list were left out`);
}

export function importCommands(program: Command): void {
  const realm = program.commands.find((c) => c.name() === 'realm');
  if (!realm) throw new Error('the realm command must be registered first');
  realm
    .command('import <file>')
    .description("create an organization from an export: the reference's export tarball (.tar.gz), a Slack export (.zip) or a Mattermost bulk export (.zip or directory); resumable: run it again after an interruption")
    .option('--subdomain <subdomain>', "the new organization's subdomain (default: the export's)")
    .option('--slack-threads', 'Slack: give each thread a topic of its own, as the reference\'s --convert-slack-threads')
    .option('--slack-token <token>', "Slack: an API token (xoxb- with emoji:read, files:read, team:read, users:read, users:read.email, or xoxp-) to download the files into the organization's uploads and fetch custom emoji, the team icon and the user list, as the reference's converter; default: STOA_SLACK_TOKEN")
    .action(importCommand);
}
