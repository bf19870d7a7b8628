import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { EXPORT_FULL, EXPORT_PUBLIC, EXPORT_STANDARD, exportFileName, writeExport } from '../api/exports/archive.js';
import { cliConfig, CliError, findRealm, withReadAccess, withRealmShard } from './context.js';

/**
 * `stoa realm export`: the organization as the reference's export tarball (what POST
 * /export/realm makes, and what `manage.py import` and `stoa realm import` read). It only reads
 * the stores, so it runs beside a live server, as `stoa realm list` does; by default it is the
 * full export the reference's `manage.py export` makes, everyone's private data included.
 */
const TYPES: Record<string, number> = { full: EXPORT_FULL, standard: EXPORT_STANDARD, public: EXPORT_PUBLIC };

async function exportCommand(opts: { realm: string; type: string; out: string }): Promise<void> {
  const type = TYPES[opts.type];
  if (type === undefined) throw new CliError(`--type must be full, standard or public, not "${opts.type}"`);
  const config = cliConfig(true);
  const dir = resolve(opts.out);
  mkdirSync(dir, { recursive: true });
  const file = await withReadAccess(config, async (directory) => {
    if (!directory) throw new CliError('no realms yet');
    return withRealmShard(config, findRealm(directory, opts.realm), async (shard, realm) => {
      const name = exportFileName(realm, 0);
      await writeExport(shard, realm, type, dir, name);
      return name;
    });
  });
  console.log(`${resolve(dir, file)}`);
}

export function exportCommands(program: Command): void {
  const realm = program.commands.find((c) => c.name() === 'realm');
  if (!realm) throw new Error('the realm command must be registered first');
  realm
    .command('export')
    .description("write an organization as the reference's export tarball (readable by its manage.py import and by stoa realm import); allowed while the server runs")
    .requiredOption('--realm <subdomain>', "the realm's subdomain ('' for the root realm)")
    .option('--type <type>', 'full (everything), standard (private data of consenting users) or public', 'full')
    .option('--out <dir>', 'the directory to write the tarball into', '.')
    .action(exportCommand);
}
