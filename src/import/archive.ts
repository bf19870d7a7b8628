import { createReadStream, createWriteStream, existsSync, lstatSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, normalize, sep } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { extract as tarExtract } from 'tar-stream';
import yauzl from 'yauzl';
import { ImportError } from './errors.js';

/**
 * Brings an archive into a staging directory the importers read as plain files: the reference's
 * export tarball (.tar.gz, .tgz, .tar), a zip (Slack's workspace export, Mattermost's bulk
 * export), or a directory already unpacked (used in place). Entries that would land outside the
 * staging directory (absolute paths, `..`) and links are refused: an archive is untrusted input.
 */

export type SourceKind = 'zulip' | 'slack' | 'mattermost';

/** Where an entry of the archive may be written, or an ImportError naming it. */
function safePath(root: string, file: string, name: string): string {
  const clean = name.replace(/\\/g, '/');
  if (isAbsolute(clean) || clean.split('/').includes('..')) throw new ImportError(file, name, 'entry path leaves the archive');
  const out = normalize(join(root, clean));
  if (out !== root && !out.startsWith(root + sep)) throw new ImportError(file, name, 'entry path leaves the archive');
  return out;
}

async function untar(file: string, root: string): Promise<void> {
  const extract = tarExtract();
  const done = (async () => {
    for await (const entry of extract) {
      const { name, type } = entry.header;
      if (type === 'directory') {
        mkdirSync(safePath(root, file, name), { recursive: true });
        entry.resume();
      } else if (type === 'file' || type === 'contiguous-file') {
        const out = safePath(root, file, name);
        mkdirSync(dirname(out), { recursive: true });
        await pipeline(entry, createWriteStream(out));
      } else {
        entry.resume();
        throw new ImportError(file, name, `a ${type} entry (only files and directories are imported)`);
      }
    }
  })();
  const gz = /\.(tar\.gz|tgz)$/i.test(file);
  const input = createReadStream(file);
  try {
    await Promise.all([gz ? pipeline(input, createGunzip(), extract) : pipeline(input, extract), done]);
  } catch (err) {
    if (err instanceof ImportError) throw err;
    throw new ImportError(file, null, `not a readable ${gz ? 'gzip-compressed ' : ''}tar archive (${(err as Error).message})`);
  }
}

function openZip(file: string): Promise<yauzl.ZipFile> {
  return new Promise((resolve, reject) =>
    // Raw names: Slack's exports are UTF-8 without the zip flag that says so (read as cp437 they
    // would be mojibake, which the reference undoes the same way).
    yauzl.open(file, { lazyEntries: true, decodeStrings: false, autoClose: true }, (err, zip) => (err ? reject(err) : resolve(zip))),
  );
}

async function unzip(file: string, root: string): Promise<void> {
  let zip: yauzl.ZipFile;
  try {
    zip = await openZip(file);
  } catch (err) {
    throw new ImportError(file, null, `not a readable zip archive (${(err as Error).message})`);
  }
  await new Promise<void>((resolve, reject) => {
    const fail = (err: unknown) => {
      zip.close();
      reject(err instanceof ImportError ? err : new ImportError(file, null, `damaged zip archive (${(err as Error).message})`));
    };
    zip.on('error', fail);
    zip.on('end', () => resolve());
    zip.on('entry', (entry: yauzl.Entry) => {
      const name = Buffer.from(entry.fileName as unknown as Uint8Array).toString('utf8');
      let out: string;
      try {
        out = safePath(root, file, name);
      } catch (err) {
        return fail(err);
      }
      if (name.endsWith('/')) {
        mkdirSync(out, { recursive: true });
        return zip.readEntry();
      }
      // Unix mode in the external attributes: a symbolic link is refused like a tar link.
      if (((entry.externalFileAttributes >>> 16) & 0o170000) === 0o120000) return fail(new ImportError(file, name, 'a symbolic link entry'));
      zip.openReadStream(entry, (err, stream) => {
        if (err) return fail(err);
        mkdirSync(dirname(out), { recursive: true });
        pipeline(stream, createWriteStream(out)).then(() => zip.readEntry(), fail);
      });
    });
    zip.readEntry();
  });
}

/**
 * Unpacks `file` into `root` (created), or returns `file` itself when it is a directory. Throws
 * ImportError for an archive that cannot be read or an entry that is refused.
 */
export async function stage(file: string, root: string): Promise<string> {
  if (!existsSync(file)) throw new ImportError(file, null, 'no such file');
  if (statSync(file).isDirectory()) return file;
  mkdirSync(root, { recursive: true });
  if (/\.(tar\.gz|tgz|tar)$/i.test(file)) await untar(file, root);
  else if (/\.zip$/i.test(file)) await unzip(file, root);
  else throw new ImportError(file, null, 'unknown archive type: expected .tar.gz, .tgz, .tar or .zip, or a directory');
  return root;
}

function has(dir: string, name: string): boolean {
  return existsSync(join(dir, name));
}

/** Which exporter wrote the files under `dir`, and the directory they start in. */
export function detect(file: string, dir: string): { kind: SourceKind; root: string } {
  const queue = [dir];
  // The reference's tarball wraps its files in one directory; Slack's and Mattermost's zips may.
  for (let depth = 0; depth < 3 && queue.length > 0; depth++) {
    const next: string[] = [];
    for (const d of queue) {
      if (has(d, 'realm.json')) return { kind: 'zulip', root: d };
      if (has(d, 'channels.json') && has(d, 'users.json')) return { kind: 'slack', root: d };
      if (has(d, 'export.json') || readdirSync(d).some((n) => n.endsWith('.jsonl'))) return { kind: 'mattermost', root: d };
      for (const n of readdirSync(d)) if (lstatSync(join(d, n)).isDirectory()) next.push(join(d, n));
    }
    queue.splice(0, queue.length, ...next);
  }
  throw new ImportError(file, null, 'not an export this server imports: no realm.json (the reference), channels.json and users.json (Slack) or export.json / *.jsonl (Mattermost)');
}
