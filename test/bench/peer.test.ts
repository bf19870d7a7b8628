import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { runBench } from './run-bench.js';

/**
 * `npm run bench -- --quick --peer ejabberd` end to end, so that the comparison cannot rot:
 * ejabberd is started four ways, then Stoa, and the report has every column. Figures are not
 * judged here (timing belongs to the bench); that every message reached every member is.
 */
const installed = existsSync('/usr/sbin/ejabberdctl') && existsSync('/usr/bin/erl');

t.test('bench --peer ejabberd compares both servers', { skip: installed ? false : 'ejabberd is not installed here (/usr/sbin/ejabberdctl, /usr/bin/erl): the peer comparison cannot run' }, async (t) => {
  t.setTimeout(600_000);
  const { code, stdout, stderr, out } = await runBench(t, ['--quick', '--peer', 'ejabberd']);
  t.equal(code, 0, `the bench exits cleanly${code === 0 ? '' : `: ${stderr.slice(-2000)}`}`);
  const files = readdirSync(out).filter((f) => f.startsWith('peer-') && f.endsWith('.json'));
  t.equal(files.length, 1, 'one JSON report');
  const report = JSON.parse(readFileSync(join(out, files[0]), 'utf8'));
  t.ok(report.stoa.p1Rate > 0, 'Stoa sent messages');
  t.equal(report.stoa.p2.incomplete, 0, "every Stoa message reached all 50 pollers");
  t.equal(report.ejabberd.length, 4, 'ejabberd ran four ways');
  for (const e of report.ejabberd) {
    const name = `${e.transport}${e.archive ? ' + archive' : ''}`;
    t.ok(e.p1.rate > 0, `ejabberd ${name}: messages went through`);
    t.equal(e.p2.incomplete, 0, `ejabberd ${name}: every message reached all 50 members`);
  }
  t.match(stdout, /ejabberd TCP push/, 'the table is printed');
});
