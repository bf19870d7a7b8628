import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { loadConfig, resolveConfig } from '../../src/lib/config.js';
import { defineJobKind, defineLazyJobKind, jobKindDefined, jobsOf, REFILL_MS, SCAN_LIMIT, startHooks, WINDOW_MS, type JobRun } from '../../src/shard/jobs.js';
import { Shard } from '../../src/shard/shard.js';
import { shardPath } from '../../src/store/shard-store.js';

/**
 * The durable job mechanism in-process: the clock is fake (the runner's `now` and the wheel's
 * `advance` get the same time), crashes are copies of the LMDB environment taken while a run is
 * between its effect and its commit (`env.backup` copies what is committed, as a crash leaves
 * it).
 */

// Effects are rows in the meta table under `effect:<job key>`, counting how often each happened.
const effectKey = (key: string) => `effect:${key}`;
function recordEffect(run: JobRun): void {
  const { shard, batch, job } = run;
  const count = shard.read<number>(shard.store.meta, effectKey(job.key)) ?? 0;
  batch.put(shard.store.meta, effectKey(job.key), count + 1);
}
const effects = (shard: Shard, key: string) => shard.read<number>(shard.store.meta, effectKey(key)) ?? 0;

/** Order in which jobs ran, with the fake time of the run. */
const ran: { key: string; at: number; attempts: number }[] = [];
let clock = 0;

defineJobKind('test.effect', {
  run(run) {
    ran.push({ key: run.job.key, at: clock, attempts: run.job.attempts });
    recordEffect(run);
  },
});

// Records its effect on the batch, then stops before the commit while `hang` is set: the process
// "dies" there.
let hang = false;
defineJobKind('test.crash', {
  async run(run) {
    recordEffect(run);
    if (hang) await new Promise(() => {});
  },
});

// An effect outside the job's transaction (as an HTTP request is): made and committed first,
// then the process dies before the job's removal. The key tells a repeat apart.
let externalCalls = 0;
defineJobKind('test.external', {
  async run(run) {
    const { shard, job } = run;
    if (effects(shard, job.key) > 0) return; // already made: only the removal is left to do
    externalCalls++;
    const effect = shard.batch();
    effect.put(shard.store.meta, effectKey(job.key), 1);
    await effect.commit();
    if (hang) await new Promise(() => {});
  },
});

// Fails until `succeedAt` attempts have failed; gives up after 4 runs.
let succeedAt = Infinity;
const exhausted: number[] = [];
defineJobKind('test.flaky', {
  maxAttempts: 4,
  backoff: (attempts) => attempts * 1000,
  run(run) {
    ran.push({ key: run.job.key, at: clock, attempts: run.job.attempts });
    // Written before the failure: must not survive it.
    recordEffect(run);
    if (run.job.attempts < succeedAt) throw new Error('flaky');
  },
  exhausted(run) {
    exhausted.push(run.job.attempts);
  },
});

// Asks for its own retries (as a webhook delivery whose server answered 503 would), recording
// each failed attempt in the same transaction.
defineJobKind('test.retrying', {
  maxAttempts: 3,
  run(run) {
    ran.push({ key: run.job.key, at: clock, attempts: run.job.attempts });
    recordEffect(run);
    if (!run.retry(clock + 5_000)) run.batch.put(run.shard.store.meta, `gave-up:${run.job.key}`, run.job.attempts + 1);
  },
});

// Reads its input from rows of their own (as the email batch reads its notices), committed ones
// only, and records how many it found.
const rowsSeen = new Map<string, number>();
defineJobKind('test.rows', {
  run(run) {
    const { shard, job } = run;
    rowsSeen.set(job.key, [...shard.store.meta.getRange({ start: `row:${job.key}:`, end: `row:${job.key};` })].length);
  },
});

// A kind whose module loads on first use (host/registry.ts): the load defines it, as an import would.
let lazyLoads = 0;
defineLazyJobKind('test.lazy', async () => {
  lazyLoads++;
  await new Promise((r) => setImmediate(r));
  if (!jobKindDefined('test.lazy')) defineJobKind('test.lazy', { run: (run) => void (ran.push({ key: run.job.key, at: clock, attempts: run.job.attempts }), recordEffect(run)) });
});

const dirs: string[] = [];
t.teardown(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function newDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'stoa-jobs-test-'));
  dirs.push(dir);
  return dir;
}

/** Opens shard 0 of `dataDir` with the runner on the fake clock, started. */
function openShard(dataDir: string, start = true): Shard {
  const shard = Shard.open(0, resolveConfig(loadConfig({}, { dataDir, shards: 1, logLevel: 'silent' }), 0));
  const jobs = jobsOf(shard);
  jobs.now = () => clock;
  if (start) jobs.start();
  return shard;
}

/** Moves the fake clock to `to` and waits for the runs it started. */
async function advance(shard: Shard, to: number): Promise<void> {
  clock = to;
  shard.wheel.advance(to);
  await jobsOf(shard).idle();
}

async function schedule(shard: Shard, kind: string, key: string, due: number): Promise<void> {
  const batch = shard.batch();
  jobsOf(shard).schedule(batch, { kind, key, realmId: 1, due, data: { note: key } });
  await batch.commit();
}

/** Takes a copy of the committed state, as a crash at this moment would leave it. */
async function crashCopy(shard: Shard): Promise<string> {
  const dir = newDir();
  mkdirSync(shardPath(dir, 0), { recursive: true });
  await shard.store.env.backup(shardPath(dir, 0), false);
  return dir;
}

const jobRows = (shard: Shard) => [...shard.store.jobs.getRange({})].length;

t.beforeEach(() => {
  ran.length = 0;
  // On a whole second, as the wheel's ticks are: a job due at T runs at the tick of T.
  clock = Math.ceil(Date.now() / 1000) * 1000;
});

t.test('a job a start hook schedules runs when due, not at the next refill', async (t) => {
  // As the digest round is scheduled (api/notify/digest.ts): at start, due a little later.
  const hook = (jobs: ReturnType<typeof jobsOf>, shard: Shard) => {
    if (jobs.get('hooked')) return;
    const batch = shard.batch();
    jobs.schedule(batch, { kind: 'test.effect', key: 'hooked', realmId: 1, due: clock + 2_000, data: {} });
    void batch.commit();
  };
  startHooks.push(hook);
  t.teardown(() => void startHooks.splice(startHooks.indexOf(hook), 1));
  const shard = openShard(newDir());
  t.teardown(() => shard.close());
  await shard.store.env.flushed;
  const due = clock + 2_000;
  await advance(shard, due);
  // Unarmed, it would wait for the refill REFILL_MS after the start.
  t.same(ran, [{ key: 'hooked', at: due, attempts: 0 }], 'it ran at its due time, not at the next refill');
});

t.test('a job runs at its due time, not before, and leaves with its effect', async (t) => {
  const shard = openShard(newDir());
  t.teardown(() => shard.close());
  const due = clock + 5_000;
  await schedule(shard, 'test.effect', 'e:1', due);
  t.equal(jobsOf(shard).get('e:1')?.due, due, 'stored with its due time');
  await advance(shard, due - 1_000);
  t.same(ran, [], 'not run a second early');
  await advance(shard, due + 999);
  t.same(ran.map((r) => r.key), ['e:1'], 'run within the second it is due');
  t.equal(effects(shard, 'e:1'), 1, 'its effect made once');
  t.equal(jobsOf(shard).get('e:1'), undefined, 'the job is gone');
  t.equal(jobRows(shard), 0, 'no row left');
  await advance(shard, due + 60_000);
  t.equal(ran.length, 1, 'never run again');
});

t.test('rescheduling and cancelling', async (t) => {
  const shard = openShard(newDir());
  t.teardown(() => shard.close());
  await schedule(shard, 'test.effect', 'e:moved', clock + 2_000);
  await schedule(shard, 'test.effect', 'e:moved', clock + 20_000);
  await schedule(shard, 'test.effect', 'e:cancelled', clock + 3_000);
  const batch = shard.batch();
  t.equal(jobsOf(shard).cancel(batch, 'e:cancelled'), true, 'cancel finds the job');
  t.equal(jobsOf(shard).cancel(batch, 'e:none'), false, 'an unknown key is no job');
  await batch.commit();
  t.equal(jobRows(shard), 1, 'the moved job has one row, the cancelled one none');
  await advance(shard, clock + 10_000);
  t.same(ran, [], 'nothing at the old times');
  await advance(shard, clock + 20_000);
  t.same(ran.map((r) => r.key), ['e:moved'], 'the moved job runs at its new time');
});

t.test('a crash between the effect and the removal repeats the job, and the effect happens once', async (t) => {
  const shard = openShard(newDir());
  t.teardown(() => shard.close());
  const due = clock + 1_000;
  await schedule(shard, 'test.crash', 'c:1', due);
  hang = true;
  // The run records its effect and the job's removal, then hangs before the commit.
  clock = due;
  shard.wheel.advance(due);
  await new Promise((r) => setImmediate(r));
  t.equal(effects(shard, 'c:1'), 1, 'the effect is recorded (not committed)');
  t.equal(shard.store.meta.get(effectKey('c:1')), undefined, 'nothing of it is committed');
  const crashed = await crashCopy(shard);
  hang = false;

  const after = openShard(crashed);
  t.teardown(() => after.close());
  t.ok(jobsOf(after).get('c:1'), 'after the crash the job is still there');
  t.equal(effects(after, 'c:1'), 0, 'and its effect is not');
  await advance(after, due + 1_000);
  t.equal(effects(after, 'c:1'), 1, 'run again: the effect made once');
  t.equal(jobRows(after), 0, 'the job is gone');
  await after.close();
  const again = openShard(crashed);
  t.teardown(() => again.close());
  await advance(again, due + 120_000);
  t.equal(effects(again, 'c:1'), 1, 'a later start does not repeat it');
});

t.test('an effect outside the transaction is recognised by the job key when a crash repeats the job', async (t) => {
  const shard = openShard(newDir());
  t.teardown(() => shard.close());
  const due = clock + 1_000;
  await schedule(shard, 'test.external', 'x:1', due);
  hang = true;
  clock = due;
  shard.wheel.advance(due);
  // Let the effect's own commit finish: the run then hangs before the job's removal.
  for (let i = 0; i < 50 && shard.store.meta.get(effectKey('x:1')) === undefined; i++) await new Promise((r) => setTimeout(r, 10));
  t.equal(shard.store.meta.get(effectKey('x:1')), 1, 'the external effect is committed');
  const crashed = await crashCopy(shard);
  hang = false;
  t.equal(externalCalls, 1, 'made once before the crash');

  const after = openShard(crashed);
  t.teardown(() => after.close());
  t.ok(jobsOf(after).get('x:1'), 'the job survived the crash');
  await advance(after, due + 1_000);
  t.equal(externalCalls, 1, 'the repeat recognised its effect and did not make it again');
  t.equal(jobRows(after), 0, 'the job is gone');
});

t.test('jobs due while the server was down run when it comes back, in due order', async (t) => {
  const dir = newDir();
  const shard = openShard(dir);
  const start = clock;
  await schedule(shard, 'test.effect', 'o:3', start + 3_600_000);
  await schedule(shard, 'test.effect', 'o:1', start + 1_000);
  await schedule(shard, 'test.effect', 'o:2', start + 2_000);
  await schedule(shard, 'test.effect', 'o:later', start + 3 * 3_600_000);
  await shard.close();

  clock = start + 2 * 3_600_000;
  const back = openShard(dir);
  t.teardown(() => back.close());
  t.same(ran, [], 'nothing runs while loading');
  await advance(back, clock + 1_000);
  t.same(ran.map((r) => r.key), ['o:1', 'o:2', 'o:3'], 'every overdue job, oldest first');
  t.equal(jobsOf(back).get('o:later')?.due, start + 3 * 3_600_000, 'the job not yet due waits');
  t.same([effects(back, 'o:1'), effects(back, 'o:2'), effects(back, 'o:3')], [1, 1, 1], 'each effect once');
});

t.test('a job of a lazily loaded kind runs after a restart, its module loaded by the runner', async (t) => {
  const dir = newDir();
  const shard = openShard(dir);
  const start = clock;
  await schedule(shard, 'test.lazy', 'l:1', start + 1_000);
  await schedule(shard, 'test.lazy', 'l:2', start + 2_000);
  await shard.close();
  t.notOk(jobKindDefined('test.lazy'), 'nothing loaded the kind before the restart');

  clock = start + 3_600_000;
  const back = openShard(dir);
  t.teardown(() => back.close());
  await advance(back, clock + 1_000);
  t.same(ran.map((r) => r.key), ['l:1', 'l:2'], 'both overdue jobs ran');
  t.same([effects(back, 'l:1'), effects(back, 'l:2')], [1, 1], 'each effect once');
  t.equal(jobRows(back), 0, 'and left the table');
  t.ok(jobKindDefined('test.lazy'), 'the kind is defined from then on');
  t.ok(lazyLoads >= 1 && lazyLoads <= 2, 'loaded by the runs that found it missing');
});

t.test('a failing job is retried with its attempt count and backoff, then given up', async (t) => {
  const shard = openShard(newDir());
  t.teardown(() => shard.close());
  exhausted.length = 0;
  succeedAt = Infinity;
  const due = clock + 1_000;
  await schedule(shard, 'test.flaky', 'f:1', due);
  await advance(shard, due);
  let job = jobsOf(shard).get('f:1');
  t.equal(job?.attempts, 1, 'one failed attempt counted');
  t.equal(job?.due, due + 1_000, 'backoff(1) = 1 s later');
  t.equal(effects(shard, 'f:1'), 0, 'the failed run wrote nothing');
  await advance(shard, due + 999);
  t.equal(ran.length, 1, 'not before the backoff');
  await advance(shard, due + 1_000);
  job = jobsOf(shard).get('f:1');
  t.equal(job?.attempts, 2, 'second failure');
  t.equal(job?.due, due + 1_000 + 2_000, 'backoff(2) = 2 s later');
  await advance(shard, due + 3_000);
  await advance(shard, due + 6_000);
  t.same(ran.map((r) => r.attempts), [0, 1, 2, 3], 'four runs, each with the attempts before it');
  t.equal(jobsOf(shard).get('f:1'), undefined, 'dropped after maxAttempts');
  t.same(exhausted, [3], 'exhausted told once');
  await advance(shard, due + 60_000);
  t.equal(ran.length, 4, 'no fifth run');

  // The same kind succeeding on its third run: the effect happens once, then the job is gone.
  ran.length = 0;
  succeedAt = 2;
  await schedule(shard, 'test.flaky', 'f:2', clock + 1_000);
  await advance(shard, clock + 1_000);
  await advance(shard, clock + 1_000);
  await advance(shard, clock + 2_000);
  t.same(ran.map((r) => r.attempts), [0, 1, 2], 'two failures, then success');
  t.equal(effects(shard, 'f:2'), 1, 'the successful run made its effect');
  t.equal(jobsOf(shard).get('f:2'), undefined, 'and the job left with it');
});

t.test('a job held by a change in flight runs after that change commits, and reads its rows', async (t) => {
  const shard = openShard(newDir());
  t.teardown(() => shard.close());
  const jobs = jobsOf(shard);
  const due = clock + 2_000;
  await schedule(shard, 'test.rows', 'r:held', due);
  await schedule(shard, 'test.rows', 'r:free', due);
  // Each job gets a row from a change still in flight when the jobs are due; only one is held.
  const change = shard.batch();
  change.put(shard.store.meta, 'row:r:held:1', 1);
  change.put(shard.store.meta, 'row:r:free:1', 1);
  jobs.hold(change, 'r:held');
  jobs.hold(change, 'r:none');
  await advance(shard, due);
  t.same([...rowsSeen.keys()], ['r:free'], 'the job not held ran at its time');
  t.equal(rowsSeen.get('r:free'), 0, 'without the row in flight: what the hold is for');
  t.equal(jobs.get('r:held')?.due, due, 'the held one waits, as it was');
  await change.commit();
  t.equal(shard.read(shard.store.jobKeys, 'r:none'), undefined, 'holding no job writes none');
  await advance(shard, due + 1_000);
  t.equal(rowsSeen.get('r:held'), 1, 'it ran once the change committed, with its row');
  t.equal(jobRows(shard), 0, 'and is gone');
});

t.test('a handler retries on its own terms, in the transaction of its effect', async (t) => {
  const dir = newDir();
  const shard = openShard(dir);
  const due = clock + 1_000;
  await schedule(shard, 'test.retrying', 'r:1', due);
  await advance(shard, due);
  t.equal(effects(shard, 'r:1'), 1, 'the first attempt recorded');
  t.same(jobsOf(shard).get('r:1')?.attempts, 1, 'and the retry with it');
  // The retry is durable: a restart keeps it.
  await shard.close();
  const back = openShard(dir);
  t.teardown(() => back.close());
  t.equal(jobsOf(back).get('r:1')?.due, due + 5_000, 'the retry survives a restart at its time');
  await advance(back, due + 5_000);
  await advance(back, due + 10_000);
  t.same(ran.map((r) => r.attempts), [0, 1, 2], 'three runs');
  t.equal(effects(back, 'r:1'), 3, 'each attempt recorded once');
  t.equal(back.store.meta.get('gave-up:r:1'), 3, 'the handler recorded giving up');
  t.equal(jobsOf(back).get('r:1'), undefined, 'no job left');
});

t.test('many jobs far in the future cost rows, not timers, and each runs once at its time', async (t) => {
  const shard = openShard(newDir(), false);
  t.teardown(() => shard.close());
  const jobs = jobsOf(shard);
  const start = clock;
  const DAY = 86_400_000;
  const count = 2_000;
  // Spread over two days, in a scrambled order.
  const batch = shard.batch();
  for (let i = 0; i < count; i++) {
    const j = (i * 7919) % count;
    jobs.schedule(batch, { kind: 'test.effect', key: `far:${j}`, realmId: 1, due: start + 60_000 + Math.floor((j * 2 * DAY) / count), data: null });
  }
  await batch.commit();
  jobs.start();
  const inWindow = Array.from({ length: count }, (_, j) => 60_000 + Math.floor((j * 2 * DAY) / count)).filter((d) => d <= WINDOW_MS).length;
  t.equal(jobs.armedCount, inWindow, `only the ${inWindow} jobs of the next ${WINDOW_MS / 60_000} minutes have timers`);
  let maxArmed = 0;
  for (let now = start; now <= start + 2 * DAY + 2 * REFILL_MS; now += REFILL_MS / 2) {
    await advance(shard, now);
    maxArmed = Math.max(maxArmed, jobs.armedCount);
  }
  t.ok(maxArmed <= SCAN_LIMIT && maxArmed < count / 10, `at most ${maxArmed} timers at once`);
  t.equal(ran.length, count, 'every job ran');
  t.equal(new Set(ran.map((r) => r.key)).size, count, 'none twice');
  const dueOf = (key: string) => start + 60_000 + Math.floor((Number(key.slice(4)) * 2 * DAY) / count);
  t.ok(ran.every((r) => r.at >= dueOf(r.key)), 'none before its time');
  t.ok(ran.every((r) => r.at - dueOf(r.key) <= REFILL_MS / 2), 'none later than the step of the fake clock');
  t.equal(jobRows(shard), 0, 'the table is empty');
});

t.test('a backlog larger than one refill is armed a slice at a time', async (t) => {
  const dir = newDir();
  const shard = openShard(dir, false);
  const count = SCAN_LIMIT * 2 + 10;
  const batch = shard.batch();
  for (let i = 0; i < count; i++) jobsOf(shard).schedule(batch, { kind: 'test.effect', key: `b:${i}`, realmId: 1, due: clock - 3_600_000 + i, data: null });
  await batch.commit();
  await shard.close();
  const back = openShard(dir);
  t.teardown(() => back.close());
  t.equal(jobsOf(back).armedCount, SCAN_LIMIT, 'the first slice armed');
  for (let i = 1; i <= 4; i++) await advance(back, clock + 1_000);
  t.equal(ran.length, count, 'the whole backlog ran within a few ticks');
  t.same(
    ran.map((r) => r.key),
    Array.from({ length: count }, (_, i) => `b:${i}`),
    'in due order',
  );
});
