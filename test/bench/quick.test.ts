import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { runBench } from './run-bench.js';

/**
 * `npm run bench -- --quick` end to end, so that the bench cannot rot: every scenario runs
 * against a server of its own and the report says so. Figures are not judged here (timing
 * belongs to the bench itself); errors are.
 */

t.test('bench --quick runs every scenario and writes its report', async (t) => {
  t.setTimeout(240_000);
  const { code, stdout, stderr, out } = await runBench(t, ['--quick']);
  t.equal(code, 0, `the bench exits cleanly${code === 0 ? '' : `: ${stderr.slice(-2000)}`}`);

  const files = readdirSync(out).filter((f) => f.endsWith('.json'));
  t.equal(files.length, 1, 'one JSON report');
  const report = JSON.parse(readFileSync(join(out, files[0]), 'utf8'));
  t.equal(report.mode, 'quick', 'a quick run');
  t.ok(report.baseline.rps > 0, 'the baseline was measured');
  t.equal(report.baseline.errors, 0, 'the baseline answered every request');
  const ids = report.results.map((r: { id: string }) => r.id);
  for (const id of ['P1', 'P2', 'P3', 'P4', 'P5', 'P6', 'P7', 'P7b', 'P8', 'P9']) t.ok(ids.includes(id), `${id} ran`);
  const byId = Object.fromEntries(report.results.map((r: { id: string }) => [r.id, r]));
  t.equal(byId.P1.details.errors, 0, 'P1: every send succeeded');
  t.equal(byId.P1.details.pollErrors, 0, 'P1: every poll succeeded');
  t.ok(byId.P1.details.eventsDelivered >= byId.P1.details.requests, 'P1: the pollers received the messages');
  t.equal(byId.P2.details.incomplete, 0, `P2: every message reached all 50 pollers (${byId.P2.details.count} of ${byId.P2.details.sent})`);
  t.equal(byId.P2.details.errors, 0, 'P2: every send succeeded');
  t.ok(byId.P2.details.leadIn > 0 && byId.P2.details.count === byId.P2.details.sent, `P2: a lead-in went first (${byId.P2.details.leadIn} sends), and only the measured sends were timed`);
  t.equal(byId.P3.details.errors, 0, 'P3: every send succeeded with the extra polls parked');
  // Only that they are reported: with the quick run's 300 queues, a collection between the two
  // reads can make the difference negative.
  t.ok(Number.isFinite(byId.P3.details.rssBeforeMb) && Number.isFinite(byId.P3.details.kbPerParkedQueue), 'P3: the RSS before the queues registered, and per parked queue');
  t.equal(byId.P5.details.errors, 0, 'P5: every history read succeeded');
  t.ok(byId.P8.details.marked >= 1000, 'P8: the messages were marked read');
  t.equal(byId.P9.details.steps[0].errors, 0, 'P9: the first step ran without errors');
  t.equal(byId.DELIVERY?.details.count, 50, 'DELIVERY: every round reached all 50 pollers');
  t.ok(byId.DELIVERY?.details.msPerRound > 0, "DELIVERY: the server's CPU per round was read");
  t.ok(typeof byId.P4.details.rssMb === 'number' && byId.P4.details.rssMb > 0, 'P4: the server RSS was read');
  t.match(stdout, /baseline \(bare Koa\): \d+ req\/s/, 'the table is printed');
  for (const r of report.results) t.ok(r.pass === null || typeof r.pass === 'boolean', `${r.id} has a verdict`);
});
