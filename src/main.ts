#!/usr/bin/env node
import { ConfigError, loadConfig } from './config.js';
import { log } from './lib/log.js';
import { startServer } from './server.js';
import { DataDirLockedError } from './store/lock.js';

// A promise rejected with no handler must never end the server (Node's default): it is a bug
// to log, not a reason to drop every realm's connections. (Shard threads do the same.)
process.on('unhandledRejection', (reason) => log.error({ err: reason }, 'unhandled promise rejection'));

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
    // The stop itself bounds connections to the grace period; this bounds the rest (saving
    // queues, flushing LMDB), so that a stop always ends.
    setTimeout(() => {
      log.fatal({ signal }, 'shutdown did not finish in time');
      process.exit(1);
    }, (server.config.stopGraceSeconds + 30) * 1000).unref();
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
