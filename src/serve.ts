import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, unknownVariables, type Config } from './lib/config.js';
import { log } from './lib/log.js';
import { DataDirLockedError } from './store/lock.js';
import { directoryFile, shardStores } from './store/integrity.js';
import { probeStores } from './store/probe.js';
import type { ShardPool } from './host/pool.js';

// A promise rejected with no handler must never end the server (Node's default): it is a bug
// to log, not a reason to drop every realm's connections. (Shard threads do the same.)
process.on('unhandledRejection', (reason) => log.error({ err: reason }, 'unhandled promise rejection'));

/**
 * The first start's organization and owner from the command line (`npm start -- --owner-email
 * ...`); STOA_ORGANIZATION_NAME, STOA_OWNER_EMAIL and STOA_OWNER_NAME do the same (lib/config.ts).
 */
function rootRealmArgs(): Partial<Config['rootRealm']> {
  const { values } = parseArgs({
    options: { 'owner-email': { type: 'string' }, 'owner-name': { type: 'string' }, 'organization-name': { type: 'string' } },
    strict: true,
  });
  const args = { ownerEmail: values['owner-email'], ownerFullName: values['owner-name'], name: values['organization-name'] };
  return Object.fromEntries(Object.entries(args).filter(([, v]) => v !== undefined));
}

/** `npm start`: validate the config, start, print the first owner's credentials, stop on signals. */
async function main(releaseTiers: () => void): Promise<void> {
  let config;
  let named: Partial<Config['rootRealm']>;
  try {
    named = rootRealmArgs();
    config = loadConfig(process.env, Object.keys(named).length > 0 ? ({ rootRealm: named } as Partial<Config>) : {});
  } catch (err) {
    if (err instanceof ConfigError || (err as NodeJS.ErrnoException).code?.startsWith('ERR_PARSE_ARGS')) {
      console.error(`stoa: ${(err as Error).message}`);
      process.exit(2);
    }
    throw err;
  }
  for (const warning of unknownVariables()) console.error(`stoa: ${warning}`);
  // The start reads the tables the shards load in a child process first (server.ts). Begun
  // here, before the server's modules load, the child reads while this process loads them: on a
  // store of a million messages the probe was about a third of the start. It only reads, and
  // its report is used only after the lock is held and the files' own checks have passed; a
  // first start (no directory yet) has nothing to probe.
  const loadProbe = existsSync(directoryFile(config.dataDir)) ? probeStores(config.dataDir, 'load') : undefined;
  loadProbe?.catch(() => undefined);
  // The shards on disk start their threads now too: each loads its modules while this process
  // loads its own (about 600 and 300 ms on a store of a million messages), and waits at the
  // pool's gate until the start's checks have passed (lib/start-gate.ts).
  let pool: ShardPool | undefined;
  if (loadProbe) {
    pool = new (await import('./host/pool.js')).ShardPool(config);
    pool.prestart(shardStores(config.dataDir));
  }
  const { startServer } = await import('./server.js');
  const server = await startServer(config, { loadProbe, releaseTiers, pool });
  const { bootstrap } = server;
  if (bootstrap) {
    console.log((await import('./realms.js')).describeCreatedRealm(bootstrap));
    console.log(`  (a new organization: ${server.config.dataDir} held none)`);
  } else if (Object.keys(named).length > 0 || process.env.STOA_OWNER_EMAIL || process.env.STOA_ORGANIZATION_NAME) {
    console.error('stoa: the organization exists already, so the owner and organization given are ignored (an address changes in the account settings or with `stoa user set-email`, the name in the organization settings)');
  }
  for (const line of server.notices) console.error(`stoa: ${line}`);
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

/** The server's start and life, run by main.ts once it has held V8's compiling tiers back. */
export function serve(releaseTiers: () => void): void {
  main(releaseTiers).catch((err) => {
    // Another server (or an admin command) has the data directory: an expected refusal, not a crash.
    if (err instanceof DataDirLockedError) {
      console.error(`stoa: ${err.message}`);
      process.exit(1);
    }
    if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      const { port, address } = err as { port?: number; address?: string };
      console.error(`stoa: failed to start: listen EADDRINUSE: port ${port} on ${address} is in use (another Stoa, or another program): set STOA_PORT (or "port" in the config) to a free port`);
      process.exit(1);
    }
    console.error(`stoa: failed to start: ${err instanceof Error ? err.message : err}`);
    log.fatal({ err }, 'start failed');
    process.exit(1);
  });
}
