import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { parse as parseYaml } from 'yaml';
import { loadConfig, projectRoot, VARIABLES } from '../../src/lib/config.js';
import { freePort } from '../startup/spawn.js';
import { mainConf, missingTools, NGINX, prepareSite, run } from '../helpers/nginx.js';

/**
 * docs/OPERATIONS.md, checked where this machine can: each shell block parses, the config file
 * it shows loads, the unit it shows is config/stoa.service and passes systemd-analyze verify,
 * the nginx site passes nginx -t, the logrotate block passes logrotate -d, the Prometheus block
 * is YAML, and every `stoa` command and STOA_* variable it names exists. Tools that are missing
 * are said so, loudly, and their check skipped.
 */
const guide = readFileSync(join(projectRoot, 'docs', 'OPERATIONS.md'), 'utf8');
const blocks = (lang: string) => [...guide.matchAll(new RegExp('^```' + lang + '\\n([\\s\\S]*?)^```$', 'gm'))].map((m) => m[1]);
const CLI = join(projectRoot, 'dist', 'src', 'cli', 'stoa.js');

function skip(t: Test, what: string): void {
  console.error(`\n*** SKIPPING ${what} ***\n`);
  t.comment(`SKIPPED: ${what}`);
  t.pass(`skipped: ${what}`);
}

function tempFile(t: Test, name: string, text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'stoa-guide-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

t.test('docs/OPERATIONS.md', async (t) => {
  t.test('every shell block parses', async (t) => {
    const sh = blocks('sh');
    t.ok(sh.length >= 8, `${sh.length} blocks`);
    for (const [i, block] of sh.entries()) {
      const res = await run('/bin/bash', ['-n', tempFile(t, `block-${i}.sh`, block)]);
      t.equal(res.code, 0, `block ${i + 1} (${block.split('\n')[0]}): bash -n ${res.stderr}`);
    }
  });

  t.test('the config file loads', async (t) => {
    const [json] = blocks('json');
    const file = tempFile(t, 'stoa.json', json);
    const config = loadConfig({ STOA_CONFIG: file, STOA_DATA_DIR: '/var/lib/stoa' });
    t.same([config.externalHost, config.scheme, config.trustedProxies], ['chat.example.com', 'https', ['127.0.0.1', '::1']], 'with the values it shows');
    t.equal(config.rateLimits.perIp.length, 1, 'and the defaults beside them');
  });

  t.test('the unit is config/stoa.service', async (t) => {
    const [unit] = blocks('ini');
    t.equal(unit, readFileSync(join(projectRoot, 'config', 'stoa.service'), 'utf8'), 'the guide shows the file as shipped');
    for (const line of ['WorkingDirectory=/opt/stoa', 'Restart=on-failure', 'User=stoa', 'NoNewPrivileges=yes', 'ProtectSystem=strict', 'ExecStart=/usr/bin/node dist/src/main.js']) t.match(unit, new RegExp(`^${line.replace(/[.*+?^$()|[\]\\/]/g, '\\$&')}$`, 'm'), line);
    if (!existsSync('/usr/bin/systemd-analyze')) return skip(t, 'systemd-analyze verify: systemd-analyze is not installed');
    const res = await run('/usr/bin/systemd-analyze', ['verify', tempFile(t, 'stoa.service', unit)]);
    t.equal(res.code, 0, `systemd-analyze verify accepts it ${res.stderr}`);
    t.notMatch(res.stderr, /Unknown (key|section)|Invalid/i, 'without a warning on any line');
  });

  t.test('the nginx site passes nginx -t', async (t) => {
    const missing = missingTools();
    if (missing) return skip(t, `nginx -t: ${missing}`);
    const ports = { upstream: await freePort(), https: await freePort(), http: await freePort() };
    const site = await prepareSite(ports);
    t.teardown(() => rmSync(site.dir, { recursive: true, force: true }));
    const res = await run(NGINX, ['-t', '-p', site.dir, '-c', mainConf(site), '-e', join(site.dir, 'error.log')]);
    t.equal(res.code, 0, `nginx -t ${res.stderr}`);
    t.match(res.stderr, /syntax is ok/, 'syntax is ok');
  });

  t.test('the logrotate block', async (t) => {
    const [conf] = blocks('logrotate');
    t.match(conf, /copytruncate/, 'copies and truncates: the server keeps its log open');
    const logrotate = ['/usr/sbin/logrotate', '/usr/bin/logrotate'].find((p) => existsSync(p));
    if (!logrotate) return skip(t, 'logrotate -d: logrotate is not installed (apt-get install logrotate)');
    const file = tempFile(t, 'stoa', conf);
    const res = await run(logrotate, ['-d', '-s', `${file}.state`, file]);
    t.equal(res.code, 0, res.code === 0 ? 'logrotate -d accepts it' : `logrotate -d: ${res.stderr}`);
  });

  t.test('the Prometheus block is YAML that scrapes the server', async (t) => {
    const [yaml] = blocks('yaml');
    t.same(parseYaml(yaml).scrape_configs[0].static_configs[0].targets, ['127.0.0.1:9991'], 'the server\'s own port');
  });

  t.test('every stoa command it names exists', async (t) => {
    const commands = new Set<string>();
    for (const block of blocks('sh')) {
      for (const line of block.split('\n')) {
        const m = /(?:^|\/usr\/local\/bin\/)stoa ((?:[a-z-]+ ?)+)/.exec(line.trim());
        if (m) commands.add(m[1].trim().split(' ').filter((w) => !w.startsWith('-')).slice(0, 2).join(' '));
      }
    }
    t.ok(commands.size >= 8, `${[...commands].join(', ')}`);
    for (const command of commands) {
      const res = await new Promise<number>((resolve) => execFile(process.execPath, [CLI, ...command.split(' '), '--help'], (err) => resolve(err ? ((err as { code?: number }).code ?? 1) : 0)));
      t.equal(res, 0, `stoa ${command} --help`);
    }
  });

  t.test('every STOA_* variable it names is read', async (t) => {
    const named = new Set(guide.match(/STOA_[A-Z_]+/g));
    for (const name of named) t.ok(VARIABLES.includes(name), name);
  });
});
