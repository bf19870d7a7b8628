import { request as httpRequest } from 'node:http';
import { crc32, deflateSync } from 'node:zlib';
import { checkResponse } from '../../helpers/openapi.js';
import type { Credentials, Response, TestServer } from '../../helpers/server.js';
import { multipartBody, type FilePart } from '../../helpers/upload.js';

/**
 * Small real images for custom emoji tests, made here byte by byte (no image files in the repo):
 * a still PNG, and an animated GIF, APNG and WebP of two frames each.
 */

/** A 1x1 grey PNG. */
export const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAAAAAA6fptVAAAACklEQVR42mM4AQAAygDJNEIn8wAAAABJRU5ErkJggg==', 'base64');

const GIF_HEAD = Buffer.from('GIF89a\x01\x00\x01\x00\x80\x00\x00\xff\xff\xff\x00\x00\x00', 'latin1');
const NETSCAPE_LOOP = Buffer.from('!\xff\x0bNETSCAPE2.0\x03\x01\x00\x00\x00', 'latin1');
const GIF_FRAME = (colour: number) =>
  Buffer.concat([Buffer.from('!\xf9\x04\x00\x0a\x00\x00\x00', 'latin1'), Buffer.from(',\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02', 'latin1'), Buffer.from([colour ? 0x4c : 0x44, 0x01, 0x00])]);

/** A 1x1 GIF of two frames, and what its first frame alone is. */
export const GIF_ANIMATED = Buffer.concat([GIF_HEAD, NETSCAPE_LOOP, GIF_FRAME(0), GIF_FRAME(1), Buffer.from(';')]);
export const GIF_FIRST_FRAME = Buffer.concat([GIF_HEAD, NETSCAPE_LOOP, GIF_FRAME(0), Buffer.from(';')]);
export const GIF_STILL = Buffer.concat([GIF_HEAD, GIF_FRAME(0), Buffer.from(';')]);

function chunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

const u32 = (...ns: number[]) => Buffer.concat(ns.map((n) => { const b = Buffer.alloc(4); b.writeUInt32BE(n); return b; }));
const u16 = (...ns: number[]) => Buffer.concat(ns.map((n) => { const b = Buffer.alloc(2); b.writeUInt16BE(n); return b; }));
const IHDR = chunk('IHDR', Buffer.concat([u32(1, 1), Buffer.from([8, 0, 0, 0, 0])]));
const IDAT = chunk('IDAT', deflateSync(Buffer.from([0, 0x80])));
const IEND = chunk('IEND', Buffer.alloc(0));
const SIGNATURE = PNG.subarray(0, 8);
const fcTL = (seq: number) => chunk('fcTL', Buffer.concat([u32(seq, 1, 1, 0, 0), u16(1, 10), Buffer.from([0, 0])]));

/** A 1x1 APNG of two frames (the default image is the first), and its still: a plain PNG. */
export const APNG = Buffer.concat([
  SIGNATURE, IHDR, chunk('acTL', u32(2, 0)), fcTL(0), IDAT,
  fcTL(1), chunk('fdAT', Buffer.concat([u32(2), deflateSync(Buffer.from([0, 0x20]))])), IEND,
]);
export const APNG_STILL = Buffer.concat([SIGNATURE, IHDR, IDAT, IEND]);

function riff(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32LE(data.length);
  return Buffer.concat([Buffer.from(type, 'latin1'), len, data, data.length & 1 ? Buffer.alloc(1) : Buffer.alloc(0)]);
}

const VP8L = (seed: number) => riff('VP8L', Buffer.from([0x2f, 0x00, 0x00, 0x00, 0x00, seed, 0x07, 0x10]));
const ANMF = (seed: number) => riff('ANMF', Buffer.concat([Buffer.from([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 100, 0, 0, 0]), VP8L(seed)]));

/** A WebP of two frames, and its still: the first frame's bitstream as a simple WebP. */
export const WEBP_ANIMATED = riff('RIFF', Buffer.concat([
  Buffer.from('WEBP'), riff('VP8X', Buffer.from([0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0])), riff('ANIM', Buffer.alloc(6)), ANMF(1), ANMF(2),
]));
export const WEBP_STILL = riff('RIFF', Buffer.concat([Buffer.from('WEBP'), VP8L(1)]));

function basic(c: Credentials): string {
  return `Basic ${Buffer.from(`${c.email}:${c.apiKey}`).toString('base64')}`;
}

/** POST /realm/emoji/{emoji_name} with file parts, as the Python bindings send it. */
export function uploadEmoji(ts: TestServer, name: string, files: FilePart[], opts: { auth?: Credentials; host?: string } = {}): Promise<Response> {
  const { body, contentType } = multipartBody(files);
  const path = `/realm/emoji/${encodeURIComponent(name)}`;
  const headers = {
    host: opts.host ?? ts.server.config.externalHost,
    'content-type': contentType,
    'content-length': String(body.length),
    authorization: basic(opts.auth ?? ts.owner),
  };
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: ts.port, method: 'POST', path: `/api/v1${path}`, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        if (res.statusCode! < 300) checkResponse('POST', path, parsed);
        resolve({ status: res.statusCode!, headers: res.headers, body: parsed });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** One image file part, as a client sends an emoji. */
export const png = (filename = 'emoji.png', content: Buffer = PNG, contentType = 'image/png'): FilePart => ({ filename, content, contentType });
