import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { startEnvironment } from '../../bench/lib/target.js';
import { projectRoot } from '../../src/lib/config.js';

/**
 * The bench starts its server as a self-hoster does: with the environment `npm start` sets
 * (MALLOC_ARENA_MAX), which the systemd unit sets too, and with nothing either lacks.
 */
const script = (JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
const unit = readFileSync(join(projectRoot, 'config', 'stoa.service'), 'utf8');

t.test('npm start, the systemd unit and the bench give the server the same environment', async (t) => {
  const env = startEnvironment({});
  t.same(env, { MALLOC_ARENA_MAX: '2' }, 'the bench reads what npm start sets');
  for (const [name, value] of Object.entries(env)) t.match(unit, new RegExp(`^Environment=${name}=${value}$`, 'm'), `the unit sets ${name}=${value} too`);
  // The start script's own shell, with a server that prints what it was given in its place.
  const run = (own: Record<string, string>) =>
    execFileSync('/bin/sh', ['-c', script.replace('node scripts/start.mjs', `"${process.execPath}" -e "console.log(process.env.MALLOC_ARENA_MAX)"`)], { env: { PATH: process.env.PATH, ...own }, encoding: 'utf8' }).trim();
  t.equal(run({}), '2', 'npm start sets it');
  t.equal(run({ MALLOC_ARENA_MAX: '4' }), '4', 'unless the caller set it already');
  t.same(startEnvironment({ MALLOC_ARENA_MAX: '4' }), {}, 'and so does the bench');
});
