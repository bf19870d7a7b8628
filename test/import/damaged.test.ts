import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, truncateSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { stoa, tempDir } from '../cli/run.js';
import { startTestServer } from '../helpers/server.js';
import { buildReferenceExport } from './reference-export.js';
import { zipEntries } from './zip.js';

/**
 * A damaged or malformed archive is refused with the file, the record and the reason, and
 * nothing is written: no realm, no realm id taken, no job or unpacked files left behind.
 */
t.test('damaged archives are refused and leave nothing', async (t) => {
  t.setTimeout(240_000);
  const work = tempDir(t, 'stoa-import-damaged-');
  const dataDir = tempDir(t, 'stoa-import-damaged-data-');
  await (await startTestServer(t, {}, { dataDir })).close();
  const before = (await stoa(dataDir, ['realm', 'list', '--json'])).stdout;

  const variant = async (name: string, change: (dir: string) => void): Promise<string> => {
    const dir = join(work, name, 'zulip-export-acme');
    await buildReferenceExport(dir);
    change(dir);
    const tarball = join(work, `${name}.tar.gz`);
    execFileSync('tar', ['-czf', tarball, '-C', join(work, name), 'zulip-export-acme']);
    return tarball;
  };
  const edit = (dir: string, file: string, fn: (data: any) => void) => {
    const data = JSON.parse(readFileSync(join(dir, file), 'utf8'));
    fn(data);
    writeFileSync(join(dir, file), JSON.stringify(data));
  };

  const cases: [string, string, RegExp][] = [
    [await variant('sender', (d) => edit(d, 'messages-000001.json', (f) => (f.zerver_message[2].sender = 999))), 'a message from nobody', /messages-000001\.json: zerver_message\[2\] \(id 502\): sender 999 names no user of the export/],
    [await variant('field', (d) => edit(d, 'realm.json', (f) => (f.zerver_userprofile[1].full_name = 42))), 'a field of the wrong kind', /realm\.json: zerver_userprofile\[1\] \(id 11\): full_name must be a string/],
    [await variant('json', (d) => writeFileSync(join(d, 'attachment.json'), '{"zerver_attachment": [')), 'a file that is not JSON', /attachment\.json: not valid JSON/],
    [await variant('ref', (d) => edit(d, 'realm.json', (f) => (f.zerver_subscription[3].recipient = 4242))), 'a dangling reference', /realm\.json: zerver_subscription\[3\]: recipient 4242 names no row of the export/],
    [await variant('usermessage', (d) => edit(d, 'messages-000001.json', (f) => (f.zerver_usermessage[0].message = 999))), 'a flag row for a message elsewhere', /messages-000001\.json: zerver_usermessage\[0\]: message 999 is not in this file/],
  ];
  const truncated = await variant('truncated', () => {});
  truncateSync(truncated, Math.floor(statSync(truncated).size / 2));
  cases.push([truncated, 'a truncated tarball', /truncated\.tar\.gz: .*(tar|gzip|unexpected end)/i]);
  const notExport = join(work, 'empty.zip');
  // Zip writers refuse such a name: it is written as xx/ and patched, in both of its headers.
  await zipEntries(notExport, [['xx/escape.txt', 'x']]);
  writeFileSync(notExport, Buffer.from(readFileSync(notExport).toString('latin1').replaceAll('xx/escape.txt', '../escape.txt'), 'latin1'));
  cases.push([notExport, 'a zip entry that leaves the archive', /empty\.zip: \.\.\/escape\.txt: entry path leaves the archive/]);

  for (const [file, what, reason] of cases) {
    const res = await stoa(dataDir, ['realm', 'import', file, '--subdomain', 'acme']);
    t.equal(res.code, 1, `${what}: refused`);
    t.match(res.stderr, reason, `${what}: the file, the record and the reason`);
  }
  t.equal((await stoa(dataDir, ['realm', 'list', '--json'])).stdout, before, 'no organization was made');
  t.notOk(existsSync(join(dataDir, 'imports')) && readdirSync(join(dataDir, 'imports')).length > 0, 'no job or unpacked files are left');
  const good = await stoa(dataDir, ['realm', 'import', await variant('good', () => {}), '--subdomain', 'acme']);
  t.equal(good.code, 0, 'a sound export then imports');
  const realms = JSON.parse((await stoa(dataDir, ['realm', 'list', '--json'])).stdout) as { id: number; subdomain: string }[];
  t.equal(realms.find((r) => r.subdomain === 'acme')!.id, 2, 'with the next realm id: the refused ones took none');
});
