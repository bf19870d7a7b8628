import { createReadStream, createWriteStream, existsSync } from 'node:fs';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { dirname, join, sep } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { extract, pack } from 'tar-stream';
import type { ShardPool } from '../host/pool.js';
import type { DumpCursor } from '../store/realm-copy.js';

/**
 * A realm's data between two nodes, over the internal API (internal.ts), pulled by the
 * destination:
 *
 *   GET /_stoa/cluster/realms/<id>/dump    frames: [u32 length][msgpack rows], ..., [u32 0]
 *   GET /_stoa/cluster/realms/<id>/delta   the same, of the rows written since the dump began
 *   GET /_stoa/cluster/realms/<id>/files   a tar of uploads/<id>/ and exports/<id>/ (?since=ms:
 *                                          only what changed since; ?list=1: every path, JSON)
 *
 * The rows are read by the source's shard in slices (store/realm-copy.ts), and written by the
 * destination's shard one frame per transaction as they arrive. The closing empty frame tells a
 * whole dump from one cut short by a dying source.
 */
export interface TransferRequest {
  address: string;
  secret: string;
  realmId: number;
  moveId: string;
  /** The source's tracking session the copy belongs to (moves.ts). */
  session?: string;
  signal: AbortSignal;
}

/** The source no longer tracks the session (it restarted): the copy must be taken whole. */
export class DeltaRefused extends Error {}

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

async function get(req: TransferRequest, what: 'dump' | 'delta' | 'files', query: Record<string, string> = {}): Promise<Response> {
  const params = new URLSearchParams({ move: req.moveId, ...(req.session ? { session: req.session } : {}), ...query });
  const res = await fetch(`http://${req.address}/_stoa/cluster/realms/${req.realmId}/${what}?${params}`, { headers: { [SECRET_HEADER]: req.secret }, signal: req.signal });
  if (res.status === 410) throw new DeltaRefused(await res.text());
  if (res.status !== 200) throw new Error(`${what} from ${req.address}: ${res.status} ${await res.text()}`);
  return res;
}

/**
 * The destination's side: each frame of rows goes to `load` (its shard) in order. `delta`: the
 * rows written since the dump began (DeltaRefused if the source lost track of them).
 */
export async function fetchDump(req: TransferRequest, load: (bytes: Uint8Array) => Promise<number>, what: 'dump' | 'delta' = 'dump'): Promise<{ rows: number; bytes: number }> {
  const res = await get(req, what);
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

/** The delta: one frame (the source is paused, its changes are few), or 410 without the session. */
export async function serveDelta(pool: ShardPool, shard: number, realmId: number, session: string, res: ServerResponse): Promise<void> {
  const delta = await pool.admin<{ bytes: Uint8Array } | null>(shard, { kind: 'admin', op: 'realmDelta', realmId, session });
  if (!delta) {
    res.writeHead(410, { 'content-type': 'text/plain' });
    res.end('no such copy session here: copy it whole');
    return;
  }
  res.writeHead(200, { 'content-type': 'application/octet-stream' });
  res.end(Buffer.concat([frame(delta.bytes), frame(new Uint8Array(0))]));
}

/**
 * The source's side: the realm's uploaded files and finished exports, as a tar; with `since`,
 * only those whose inode changed since (a file moved into place keeps its old mtime, but its
 * rename sets ctime). `list`: every path, for the destination to drop what is gone.
 */
export async function serveFiles(dataDir: string, realmId: number, res: ServerResponse, opts: { since?: number; list?: boolean } = {}): Promise<void> {
  if (opts.list) {
    const paths: string[] = [];
    for (const folder of realmFolders(realmId)) for await (const path of filesUnder(dataDir, folder)) paths.push(path.split(sep).join('/'));
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(paths));
    return;
  }
  res.writeHead(200, { 'content-type': 'application/x-tar' });
  const tar = pack();
  const sending = pipeline(tar, res);
  for (const folder of realmFolders(realmId)) {
    for await (const path of filesUnder(dataDir, folder)) {
      const { size, ctimeMs } = await stat(join(dataDir, path));
      if (opts.since !== undefined && ctimeMs < opts.since) continue;
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
export async function fetchFiles(req: TransferRequest, dataDir: string, since?: number): Promise<{ files: number; bytes: number }> {
  const res = await get(req, 'files', since === undefined ? {} : { since: String(since) });
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
  if (since === undefined) {
    // A whole copy replaces the realm's folders.
    for (const folder of realmFolders(req.realmId)) {
      await rm(join(dataDir, folder), { recursive: true, force: true });
      if (!existsSync(join(staging, folder))) continue;
      await mkdir(dirname(join(dataDir, folder)), { recursive: true });
      await rename(join(staging, folder), join(dataDir, folder));
    }
  } else {
    // What changed goes over the copy; what the source no longer has goes.
    for (const folder of realmFolders(req.realmId)) {
      for await (const path of filesUnder(staging, folder)) {
        await mkdir(dirname(join(dataDir, path)), { recursive: true });
        await rename(join(staging, path), join(dataDir, path));
      }
    }
    const keep = new Set((await (await get(req, 'files', { list: '1' })).json()) as string[]);
    for (const folder of realmFolders(req.realmId)) {
      for await (const path of filesUnder(dataDir, folder)) if (!keep.has(path.split(sep).join('/'))) await rm(join(dataDir, path), { force: true });
    }
  }
  await rm(staging, { recursive: true, force: true });
  return { files, bytes };
}
