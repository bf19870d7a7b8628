#!/usr/bin/env node
import { ConfigError, loadConfig } from './config.js';
import { log } from './lib/log.js';
import { startServer } from './server.js';
import { DataDirLockedError } from './store/lock.js';

/** `npm start`: validate the config, start, print the first owner's credentials, stop on signals. */
async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`stoa: ${err.message}`);
      process.exit(2);
    }
    throw err;
  }
  const server = await startServer(config);
  const { bootstrap } = server;
  if (bootstrap) console.log((await import('./realms.js')).describeCreatedRealm(bootstrap));
  console.log(`Stoa listening on ${server.url} (data in ${server.config.dataDir}, ${server.config.shards} shards)`);

  const stop = (signal: string) => {
    log.info({ signal }, 'shutting down');
    server.close().then(
      () => process.exit(0),
      (err) => {
        log.fatal({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}

main().catch((err) => {
  // Another server (or an admin command) has the data directory: an expected refusal, not a crash.
  if (err instanceof DataDirLockedError) {
    console.error(`stoa: ${err.message}`);
    process.exit(1);
  }
  console.error(`stoa: failed to start: ${err instanceof Error ? err.message : err}`);
  log.fatal({ err }, 'start failed');
  process.exit(1);
});
