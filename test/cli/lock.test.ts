import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { acquireLock, DataDirLockedError, lockHolder } from '../../src/store/lock.js';
import { serveDir, stoa, stoaOk, tempDir } from './run.js';

/** What fn throws. */
function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  return undefined;
}

/** The pid of a process that has exited: a stale lock's owner. */
function deadPid(): number {
  return Number(execFileSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).toString());
}

t.test('data directory lock', async (t) => {
  t.test('write commands go through a running server; a lock held by anything else refuses them', async (t) => {
    const dir = tempDir(t);
    await stoaOk(dir, ['realm', 'create', '--subdomain', 'acme', '--name', 'Acme', '--owner-email', 'boss@acme.test']);
    const server = await serveDir(t, dir);
    t.equal(readFileSync(join(dir, 'stoa.pid'), 'utf8'), `${process.pid}\n`, 'the server wrote its pid to <data dir>/stoa.pid');
    const created = await stoa(dir, ['user', 'create', '--realm', 'acme', '--email', 'al@acme.test', '--full-name', 'Al']);
    t.equal(created.code, 0, `user create works while the server runs (stderr: ${created.stderr})`);
    const rows = JSON.parse(await stoaOk(dir, ['realm', 'list', '--json']));
    t.same(rows.map((r: { subdomain: string }) => r.subdomain), ['acme'], 'realm list runs');
    t.equal(rows[0].users, 2, 'and counts the user the server made');
    await server.close();
    t.notOk(existsSync(join(dir, 'stoa.pid')), 'a clean shutdown removes the pid file');
    t.notOk(existsSync(join(dir, 'admin.sock')), 'and its admin socket');

    const lock = acquireLock(dir);
    const refused = await stoa(dir, ['user', 'create', '--realm', 'acme', '--email', 'bo@acme.test', '--full-name', 'Bo']);
    t.equal(refused.code, 1, 'with the lock held by a process without an admin socket, a write exits 1');
    t.equal(refused.stderr, `stoa: process ${process.pid} holds the data directory (another admin command, or a server without its admin socket); try again once it is done\n`, 'saying who holds it');
    lock.release();
    const res = await stoa(dir, ['user', 'create', '--realm', 'acme', '--email', 'bo@acme.test', '--full-name', 'Bo']);
    t.equal(res.code, 0, `user create works once the lock is free (stderr: ${res.stderr})`);
    t.notOk(existsSync(join(dir, 'stoa.pid')), 'the CLI releases the lock when it is done');
  });

  t.test('a stale pid file is taken over', async (t) => {
    const dir = tempDir(t);
    writeFileSync(join(dir, 'stoa.pid'), `${deadPid()}\n`);
    const res = await stoa(dir, ['realm', 'create', '--subdomain', 'acme', '--name', 'Acme', '--owner-email', 'boss@acme.test']);
    t.equal(res.code, 0, `the CLI takes over (stderr: ${res.stderr})`);
    writeFileSync(join(dir, 'stoa.pid'), 'garbage');
    const server = await serveDir(t, dir);
    t.equal(readFileSync(join(dir, 'stoa.pid'), 'utf8'), `${process.pid}\n`, 'the server takes over a pid file that holds no pid');
    await server.close();
  });

  t.test('a pid file naming an unrelated live process is stale', async (t) => {
    const dir = tempDir(t);
    // A process that started after the pid file was written has its pid by reuse (a reboot).
    const other = spawn('sleep', ['60'], { stdio: 'ignore' });
    t.teardown(() => other.kill('SIGKILL'));
    const file = join(dir, 'stoa.pid');
    writeFileSync(file, `${other.pid}\n`);
    const hourAgo = new Date(Date.now() - 3_600_000);
    utimesSync(file, hourAgo, hourAgo);
    t.equal(lockHolder(dir), null, 'lockHolder calls it free');
    const res = await stoa(dir, ['realm', 'create', '--subdomain', 'acme', '--name', 'Acme', '--owner-email', 'boss@acme.test']);
    t.equal(res.code, 0, `the CLI takes over (stderr: ${res.stderr})`);
    writeFileSync(file, `${other.pid}\n`);
    utimesSync(file, hourAgo, hourAgo);
    const server = await serveDir(t, dir);
    t.equal(readFileSync(file, 'utf8'), `${process.pid}\n`, 'and so does the server');
    await server.close();
    t.equal(other.exitCode, null, 'the unrelated process was left alone');
    // Written after the process started: it may be the holder.
    writeFileSync(file, `${other.pid}\n`);
    t.equal(lockHolder(dir), other.pid, 'a pid file newer than its process holds the lock');
  });

  t.test('acquireLock and lockHolder', async (t) => {
    const dir = tempDir(t);
    t.equal(lockHolder(dir), null, 'a fresh directory is free');
    const lock = acquireLock(dir);
    t.equal(lockHolder(dir), process.pid, 'this process holds it');
    const twice = thrown(() => acquireLock(dir));
    t.ok(twice instanceof DataDirLockedError, 'a second acquire in the same process is refused');
    t.match(twice, { pid: process.pid, message: /is in use by process \d+ \(a running Stoa server or admin command\); stop it first$/ }, 'naming the holder');
    lock.release();
    lock.release();
    t.notOk(existsSync(join(dir, 'stoa.pid')), 'release removes the file, and is safe twice');

    // A pid file naming this process but not taken by it is left from an earlier process
    // that had the same pid (pid 1 in a container): stale.
    writeFileSync(join(dir, 'stoa.pid'), `${process.pid}\n`);
    t.equal(lockHolder(dir), null, 'our own pid, not taken by us, is stale');
    const again = acquireLock(dir);
    t.equal(readFileSync(join(dir, 'stoa.pid'), 'utf8'), `${process.pid}\n`, 'and is taken over');
    again.release();

    writeFileSync(join(dir, 'stoa.pid'), `${process.ppid}\n`);
    t.equal(lockHolder(dir), process.ppid, 'a live process holds the lock');
    t.match(thrown(() => acquireLock(dir)), { name: 'DataDirLockedError', pid: process.ppid }, 'which refuses others');
    t.equal(readFileSync(join(dir, 'stoa.pid'), 'utf8'), `${process.ppid}\n`, 'and keeps its pid file');

    const other = acquireLock(tempDir(t));
    const released = other.path;
    writeFileSync(released, '1\n');
    other.release();
    t.ok(existsSync(released), 'release leaves a pid file that another process has since taken');
  });
});
