import { Directory } from '../../src/store/directory.js';
import { openShardStore } from '../../src/store/shard-store.js';

/**
 * An imported user's API key, read from the store while no server runs: people imported from
 * Slack or Mattermost have no password here (they would set one through the password reset
 * page), and a test has no mailbox to do that with.
 */
export async function apiKeyOf(dataDir: string, subdomain: string, email: string): Promise<string> {
  const dir = new Directory(dataDir);
  const entry = dir.get(subdomain);
  await dir.close();
  if (!entry) throw new Error(`no realm ${subdomain}`);
  const store = openShardStore(dataDir, entry.shard);
  try {
    for (const { value } of store.users.getRange({ start: [entry.id], end: [entry.id + 1] })) {
      const user = value as { email: string; apiKey: string };
      if (user.email === email) return user.apiKey;
    }
    throw new Error(`no user ${email}`);
  } finally {
    await store.env.close();
  }
}
