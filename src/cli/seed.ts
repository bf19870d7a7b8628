import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { doMarkAllAsRead } from '../api/messages/flags-actions.js';
import { doSendMessage } from '../api/messages/send.js';
import { createStream } from '../api/streams/actions.js';
import { addSubscriptions, subscribeToDefaultChannels } from '../api/subscriptions/actions.js';
import { doCreateUser } from '../api/users/actions.js';
import type { RealmState } from '../model/realm-state.js';
import { ROLE, type StreamRecord, type UserRecord } from '../model/types.js';
import { flush, outbox } from '../shard/outbox.js';
import type { Shard } from '../shard/shard.js';
import { cliConfig, CliError, findRealm, withRealmShard, withWriteAccess } from './context.js';

/**
 * `stoa seed`: fills a realm with users, channels and messages for load tests (bench/), through
 * the same do-actions the API runs, so the data is what real traffic would have written. Sends
 * run many at a time: each awaits its own commit, and LMDB folds the commits in flight into few
 * transactions, which is what makes a million messages a matter of minutes.
 */
interface SeedOptions {
  realm: string;
  users: string;
  channels: string;
  messages: string;
  topics: string;
  out?: string;
}

/** What the bench reads back: who can log in, and the channels it may aim at. */
export interface SeedResult {
  users: { id: number; email: string; apiKey: string }[];
  channels: { id: number; name: string; subscribers: number; members: number[] }[];
  topics: string[];
  messages: number;
}

const IN_FLIGHT = 256;
/** The newest messages stay unread; the rest are read by everyone. */
const UNREAD_TAIL = 1000;
/** The first channel has exactly this many subscribers: the bench's fan-out scenario. */
const FANOUT_SUBSCRIBERS = 50;
const WORDS = ['deploy', 'review', 'lunch', 'release', 'bug', 'idea', 'plan', 'meeting', 'docs', 'test', 'the', 'a', 'is', 'ready', 'soon', 'why', 'again'];

/** A small deterministic generator, so that two seeds of the same size hold the same data. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
}

function int(value: string, name: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new CliError(`--${name} must be a whole number, got "${value}"`);
  return n;
}

async function seedUsers(shard: Shard, realm: RealmState, count: number): Promise<UserRecord[]> {
  const users: UserRecord[] = [];
  for (let i = 0; i < count; i++) {
    const email = `bench${i}@bench.invalid`;
    const user = realm.userByEmail(email) ?? (await doCreateUser(shard, realm, { email, fullName: `Bench User ${i}`, role: ROLE.member }));
    await subscribeToDefaultChannels(shard, realm, user);
    users.push(user);
  }
  return users;
}

async function seedChannels(shard: Shard, realm: RealmState, users: UserRecord[], count: number, random: () => number): Promise<StreamRecord[]> {
  const channels: StreamRecord[] = [];
  for (let i = 0; i < count; i++) {
    const name = `bench ${i}`;
    const out = outbox(shard);
    const stream = realm.streamByName(name) ?? createStream(shard, realm, out, { name, description: `Load-test channel ${i}` }, users[0] ?? null);
    // Channel 0: the first 50 users; the others: about a fifth of everyone, at random.
    const members = i === 0 ? users.slice(0, FANOUT_SUBSCRIBERS) : users.filter(() => random() < 0.2);
    addSubscriptions(shard, realm, out, [stream], members);
    await flush(shard, realm, out);
    channels.push(stream);
  }
  return channels;
}

async function seedMessages(shard: Shard, realm: RealmState, users: UserRecord[], channels: StreamRecord[], topics: string[], count: number, random: () => number, first: number): Promise<void> {
  let sent = 0;
  let next = first;
  count += first;
  const started = Date.now();
  const one = async (): Promise<void> => {
    while (next < count) {
      const n = next++;
      const words = Array.from({ length: 4 + Math.floor(random() * 12) }, () => WORDS[Math.floor(random() * WORDS.length)]);
      const sender = users[Math.floor(random() * users.length)];
      // One message in ten is a direct message between two users; the rest go to channels,
      // round-robin over channels and topics so every topic fills evenly.
      if (n % 10 === 9 && users.length > 1) {
        const other = users[(users.indexOf(sender) + 1 + Math.floor(random() * (users.length - 1))) % users.length];
        await doSendMessage(shard, realm, { sender, recipients: [other], content: words.join(' '), client: 'stoa seed', readBySender: true });
      } else {
        const stream = channels[n % channels.length];
        const topic = topics[Math.floor(n / channels.length) % topics.length];
        await doSendMessage(shard, realm, { sender, stream, topic, content: words.join(' '), client: 'stoa seed', readBySender: true });
      }
      if (++sent % 50_000 === 0) console.error(`  ${sent} messages, ${Math.round(sent / ((Date.now() - started) / 1000))}/s`);
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, one));
}

async function seed(opts: SeedOptions): Promise<void> {
  const counts = { users: int(opts.users, 'users'), channels: int(opts.channels, 'channels'), messages: int(opts.messages, 'messages'), topics: int(opts.topics, 'topics') };
  if (counts.messages > 0 && (counts.users === 0 || counts.channels === 0 || counts.topics === 0)) throw new CliError('messages need at least one user, channel and topic');
  const config = cliConfig();
  const random = rng(42);
  const result = await withWriteAccess(config, (directory) =>
    withRealmShard(config, findRealm(directory, opts.realm), async (shard, realm): Promise<SeedResult> => {
      const started = Date.now();
      const users = await seedUsers(shard, realm, counts.users);
      const channels = await seedChannels(shard, realm, users, counts.channels, random);
      console.error(`seeded ${users.length} users and ${channels.length} channels in ${Date.now() - started} ms`);
      const topics = Array.from({ length: counts.topics }, (_, i) => `topic ${i}`);
      // People read what they are sent: everything but the newest messages starts out read, as
      // in a realm in use (a user with 50,000 unread messages is the reference's worst case,
      // not its typical one). The read mark makes that one write per user.
      const unread = Math.min(counts.messages, UNREAD_TAIL);
      await seedMessages(shard, realm, users, channels, topics, counts.messages - unread, random, 0);
      for (const user of users) await doMarkAllAsRead(shard, realm, user);
      await seedMessages(shard, realm, users, channels, topics, unread, random, counts.messages - unread);
      console.error(`seeded ${counts.messages} messages in ${Date.now() - started} ms`);
      return {
        users: users.map((u) => ({ id: u.id, email: u.email, apiKey: u.apiKey })),
        channels: channels.map((s) => {
          const members = [...(realm.subscribers.get(s.id) ?? [])].sort((a, b) => a - b);
          return { id: s.id, name: s.name, subscribers: members.length, members };
        }),
        topics,
        messages: counts.messages,
      };
    }),
  );
  const text = JSON.stringify(result, null, 1);
  if (opts.out) writeFileSync(opts.out, text, { mode: 0o600 });
  else console.log(text);
}

export function seedCommand(program: Command): void {
  program
    .command('seed')
    .description('fill a realm with users, channels and messages for load tests; prints (or writes) the users\' API keys as JSON')
    .requiredOption('--realm <subdomain>', "the realm's subdomain ('' for the root realm)")
    .option('--users <n>', 'users bench0..bench<n-1>@bench.invalid (existing ones are reused)', '100')
    .option('--channels <n>', 'channels "bench 0".. ("bench 0" gets the first 50 users; the others about a fifth of all)', '5')
    .option('--messages <n>', 'messages: nine in ten to channels (round-robin over channels and topics), one in ten direct; all but the newest 1,000 read', '1000')
    .option('--topics <n>', 'topics per channel', '10')
    .option('--out <file>', 'write the JSON there (mode 0600) instead of printing it')
    .action(seed);
}
