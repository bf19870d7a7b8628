import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { MessageIds } from './message-ids.js';
import { openShardStore } from './shard-store.js';

/**
 * A message-id counter for a process that writes a shard without the server (the CLI, imports):
 * raised to the highest mark of every shard in the data directory, as the server's start raises
 * its shared counter, so that ids written now stay unique and increasing server-wide.
 */
export function idsAcrossShards(dataDir: string): SharedArrayBuffer {
  const buffer = MessageIds.buffer();
  const ids = new MessageIds(buffer);
  const dir = join(dataDir, 'shards');
  if (!existsSync(dir)) return buffer;
  for (const name of readdirSync(dir)) {
    if (!/^\d+$/.test(name) || !existsSync(join(dir, name, 'data.mdb'))) continue;
    const store = openShardStore(dataDir, Number(name), true);
    try {
      ids.raiseTo((store.meta.get('seq:message') as number | undefined) ?? 0);
    } finally {
      store.env.close();
    }
  }
  return buffer;
}
