import { createReadStream, createWriteStream, existsSync } from 'node:fs';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { dirname, join, sep } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { extract, pack } from 'tar-stream';
import type { ShardPool } from '../shard/pool.js';
import type { DumpCursor } from '../store/realm-copy.js';

/**
 * A realm's data between two nodes, over the internal API (internal.ts), pulled by the
 * destination:
 *
 *   GET /_stoa/cluster/realms/<id>/dump   frames: [u32 length][msgpack rows], ..., [u32 0]
 *   GET /_stoa/cluster/realms/<id>/files  a tar of uploads/<id>/ and exports/<id>/
 *
 * The rows are read by the source's shard in slices (store/realm-copy.ts) while the realm is
 * paused, and written by the destination's shard one frame per transaction as they arrive. The
 * closing empty frame tells a whole dump from one cut short by a dying source.
 */
export interface TransferRequest {
  address: string;
  secret: string;
  realmId: number;
  moveId: string;
  signal: AbortSignal;
}

export const SECRET_HEADER = 'x-stoa-cluster-secret';

/** The source's side: streams the realm's rows, frame by frame, with back-pressure. */
export async function serveDump(pool: ShardPool, shard: number, realmId: number, res: ServerResponse): Promise<void> {
  res.writeHead(200, { 'content-type': 'application/octet-stream' });
  let cursor: DumpCursor | null = { step: 0, after: null };
  while (cursor) {
    const chunk: { bytes: Uint8Array; next: DumpCursor | null } = await pool.admin(shard, { kind: 'admin', op: 'realmDump', realmId, cursor });
    await write(res, frame(chunk.bytes));
    cursor = chunk.next;
    if (res.destroyed) return;
  }
  res.end(frame(new Uint8Array(0)));
}

function frame(bytes: Uint8Array): Buffer {
  const head = Buffer.alloc(4);
  head.writeUInt32BE(bytes.byteLength);
  return Buffer.concat([head, bytes]);
}

function write(res: ServerResponse, data: Buffer): Promise<void> {
  return res.write(data) ? Promise.resolve() : new Promise((resolve) => res.once('drain', resolve));
}

async function get(req: TransferRequest, what: 'dump' | 'files'): Promise<Response> {
  const res = await fetch(`http://${req.address}/_stoa/cluster/realms/${req.realmId}/${what}?move=${encodeURIComponent(req.moveId)}`, { headers: { [SECRET_HEADER]: req.secret }, signal: req.signal });
  if (res.status !== 200) throw new Error(`${what} from ${req.address}: ${res.status} ${await res.text()}`);
  return res;
}

/** The destination's side: each frame of rows goes to `load` (its shard) in order. */
export async function fetchDump(req: TransferRequest, load: (bytes: Uint8Array) => Promise<number>): Promise<{ rows: number; bytes: number }> {
  const res = await get(req, 'dump');
  let buffered = Buffer.alloc(0);
  let rows = 0;
  let bytes = 0;
  let ended = false;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    buffered = buffered.length === 0 ? Buffer.from(chunk) : Buffer.concat([buffered, chunk]);
    bytes += chunk.byteLength;
    while (buffered.length >= 4) {
      const length = buffered.readUInt32BE(0);
      if (length === 0) {
        ended = true;
        break;
      }
      if (buffered.length < 4 + length) break;
      // A copy: the frame is transferred to the shard's thread by structured clone.
      rows += await load(new Uint8Array(buffered.subarray(4, 4 + length)));
      buffered = buffered.subarray(4 + length);
    }
  }
  if (!ended) throw new Error(`the dump from ${req.address} was cut short`);
  return { rows, bytes };
}

/** The folders of a realm's files, relative to the data directory. */
const realmFolders = (realmId: number) => [join('uploads', String(realmId)), join('exports', String(realmId))];

async function* filesUnder(root: string, dir: string): AsyncGenerator<string> {
  if (!existsSync(join(root, dir))) return;
  for (const entry of await readdir(join(root, dir), { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* filesUnder(root, path);
    // A data export still being built stays behind: the destination's job builds it again.
    else if (entry.isFile() && !entry.name.endsWith('.partial')) yield path;
  }
}

/** The source's side: the realm's uploaded files and finished exports, as a tar. */
export async function serveFiles(dataDir: string, realmId: number, res: ServerResponse): Promise<void> {
  res.writeHead(200, { 'content-type': 'application/x-tar' });
  const tar = pack();
  const sending = pipeline(tar, res);
  for (const folder of realmFolders(realmId)) {
    for await (const path of filesUnder(dataDir, folder)) {
      const { size } = await stat(join(dataDir, path));
      const entry = tar.entry({ name: path.split(sep).join('/'), size });
      await pipeline(createReadStream(join(dataDir, path)), entry);
    }
  }
  tar.finalize();
  await sending;
}

/** Removes a realm's files (a partial copy, or a copy dropped by the operator). */
export async function removeRealmFiles(dataDir: string, realmId: number): Promise<void> {
  for (const folder of realmFolders(realmId)) await rm(join(dataDir, folder), { recursive: true, force: true });
}

/**
 * The destination's side: unpacks into a staging folder, then renames each realm folder into
 * place, so a copy cut short leaves no half-written file where the server would serve it.
 */
export async function fetchFiles(req: TransferRequest, dataDir: string): Promise<{ files: number; bytes: number }> {
  const res = await get(req, 'files');
  const staging = join(dataDir, 'cluster-incoming', String(req.realmId));
  await rm(staging, { recursive: true, force: true });
  let files = 0;
  let bytes = 0;
  const allowed = realmFolders(req.realmId).map((f) => f.split(sep).join('/') + '/');
  const unpack = extract();
  unpack.on('entry', (header, stream, next) => {
    const name = header.name;
    // Only the realm's own folders, and nothing that climbs out of them.
    if (header.type !== 'file' || !allowed.some((a) => name.startsWith(a)) || name.split('/').includes('..')) {
      stream.resume();
      stream.on('end', next);
      return;
    }
    const target = join(staging, name);
    void mkdir(dirname(target), { recursive: true })
      .then(() => pipeline(stream, createWriteStream(target)))
      .then(() => {
        files++;
        bytes += header.size ?? 0;
        next();
      }, next);
  });
  await pipeline(Readable.fromWeb(res.body as Parameters<typeof Readable.fromWeb>[0]), unpack);
  for (const folder of realmFolders(req.realmId)) {
    if (!existsSync(join(staging, folder))) continue;
    await mkdir(dirname(join(dataDir, folder)), { recursive: true });
    await rm(join(dataDir, folder), { recursive: true, force: true });
    await rename(join(staging, folder), join(dataDir, folder));
  }
  await rm(staging, { recursive: true, force: true });
  return { files, bytes };
}
