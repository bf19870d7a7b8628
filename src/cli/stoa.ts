#!/usr/bin/env node
import { Command } from 'commander';
import { ConfigError } from '../lib/config.js';
import { ApiError } from '../lib/errors.js';
import { RealmCreationError } from '../realms.js';
import { clusterCommands } from './cluster.js';
import { CliError } from './context.js';
import { pushCommands } from './push.js';
import { realmCommands } from './realm.js';
import { importCommands } from './import.js';
import { exportCommands } from './export.js';
import { seedCommand } from './seed.js';
import { storeCommands } from './store.js';
import { StoreError } from '../store/integrity.js';
import { userCommands } from './user.js';

/**
 * `stoa`: the admin CLI. It reads the server's configuration. While a server runs on the data
 * directory, user and realm commands go through it (its admin socket: server-client.ts);
 * otherwise they work on the stores directly, under the data-directory lock (store/lock.ts).
 */
const program = new Command('stoa')
  .description('Administer a Stoa server: realms, users and load-test data. Reads the same config as the server (config/default.json, STOA_CONFIG, STOA_* variables).')
  .showHelpAfterError('(run with --help for usage)');
realmCommands(program);
importCommands(program);
exportCommands(program);
userCommands(program);
seedCommand(program);
storeCommands(program);
clusterCommands(program);
pushCommands(program);

// Known failures are one line and a non-zero status; anything else is a bug and shows its stack.
program.parseAsync(process.argv).catch((err: unknown) => {
  if (err instanceof ConfigError) {
    console.error(`stoa: ${err.message}`);
    process.exitCode = 2;
  } else if (err instanceof CliError || err instanceof RealmCreationError || err instanceof ApiError || err instanceof StoreError) {
    console.error(`stoa: ${err.message}`);
    process.exitCode = 1;
  } else {
    console.error('stoa: unexpected error:', err);
    process.exitCode = 1;
  }
});
