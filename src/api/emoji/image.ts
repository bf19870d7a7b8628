/**
 * What the server needs to know of an uploaded emoji image, read from its bytes: its format,
 * whether it is animated, and for animated ones a still (first-frame) image. The reference does
 * this with libvips (and also scales emoji to 64x64); here the container formats are read
 * directly, which needs no native library: a GIF's first frame, an APNG's default image and an
 * animated WebP's first frame can each be cut out without decoding a pixel. Images are stored as
 * uploaded otherwise (docs/ARCHITECTURE.md lists the difference).
 */

export type ImageFormat = 'png' | 'gif' | 'jpeg' | 'webp' | 'avif';

export const FORMAT_TYPES: Record<ImageFormat, string> = {
  png: 'image/png',
  gif: 'image/gif',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  avif: 'image/avif',
};

export const FORMAT_EXTENSIONS: Record<ImageFormat, string> = { png: '.png', gif: '.gif', jpeg: '.jpg', webp: '.webp', avif: '.avif' };

/** The format the bytes are in, from their signature; undefined when they are none of ours. */
export function sniffImage(b: Uint8Array): ImageFormat | undefined {
  const ascii = (from: number, to: number) => String.fromCharCode(...b.subarray(from, to));
  if (b.length >= 8 && b[0] === 0x89 && ascii(1, 4) === 'PNG' && b[4] === 0x0d && b[5] === 0x0a) return 'png';
  if (b.length >= 6 && (ascii(0, 6) === 'GIF87a' || ascii(0, 6) === 'GIF89a')) return 'gif';
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'jpeg';
  if (b.length >= 12 && ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') return 'webp';
  if (b.length >= 12 && ascii(4, 8) === 'ftyp' && /^avi[fs]$/.test(ascii(8, 12))) return 'avif';
  return undefined;
}

export interface ImageInfo {
  format: ImageFormat;
  animated: boolean;
  /** The first frame as an image of the same format, for animated images. */
  still?: Uint8Array;
}

/** Reads an image; undefined when its structure does not parse (a truncated or forged file). */
export function inspectImage(bytes: Uint8Array): ImageInfo | undefined {
  const format = sniffImage(bytes);
  if (!format) return undefined;
  try {
    if (format === 'gif') return gif(bytes);
    if (format === 'png') return png(bytes);
    if (format === 'webp') return webp(bytes);
    // JPEG has no animation; an AVIF image sequence is shown as uploaded (no still is cut).
    return { format, animated: false };
  } catch {
    return undefined;
  }
}

class Truncated extends Error {}

function need(b: Uint8Array, end: number): void {
  if (end > b.length) throw new Truncated();
}

/**
 * GIF: header, logical screen descriptor, global colour table, then blocks until the trailer:
 * extensions (0x21) and images (0x2C), each image's data in length-prefixed sub-blocks. The still
 * is the header and every block up to the end of the first image, then the trailer.
 */
function gif(b: Uint8Array): ImageInfo {
  need(b, 13);
  let at = 13;
  if (b[10] & 0x80) at += 3 << ((b[10] & 0x07) + 1);
  const subBlocks = () => {
    for (;;) {
      need(b, at + 1);
      const len = b[at++];
      if (len === 0) return;
      at += len;
    }
  };
  let frames = 0;
  let firstEnd = 0;
  for (;;) {
    need(b, at + 1);
    const kind = b[at];
    if (kind === 0x3b) break;
    if (kind === 0x21) {
      at += 2;
      subBlocks();
    } else if (kind === 0x2c) {
      need(b, at + 10);
      const flags = b[at + 9];
      at += 10;
      if (flags & 0x80) at += 3 << ((flags & 0x07) + 1);
      at += 1; // LZW minimum code size
      subBlocks();
      frames++;
      if (frames === 1) firstEnd = at;
    } else {
      throw new Truncated();
    }
  }
  if (frames === 0) throw new Truncated();
  if (frames === 1) return { format: 'gif', animated: false };
  const still = new Uint8Array(firstEnd + 1);
  still.set(b.subarray(0, firstEnd));
  still[firstEnd] = 0x3b;
  return { format: 'gif', animated: true, still };
}

/** PNG chunks: [length, type, data, CRC]; an APNG has an acTL chunk before its first IDAT. */
function pngChunks(b: Uint8Array): { type: string; start: number; end: number; data: number }[] {
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const chunks = [];
  for (let at = 8; at < b.length; ) {
    need(b, at + 8);
    const len = view.getUint32(at);
    const type = String.fromCharCode(...b.subarray(at + 4, at + 8));
    const end = at + 12 + len;
    need(b, end);
    chunks.push({ type, start: at, end, data: at + 8 });
    at = end;
    if (type === 'IEND') break;
  }
  if (!chunks.some((c) => c.type === 'IDAT') || chunks[0]?.type !== 'IHDR') throw new Truncated();
  return chunks;
}

/** The still of an APNG is its default image: the same file without the animation chunks. */
function png(b: Uint8Array): ImageInfo {
  const chunks = pngChunks(b);
  const actl = chunks.find((c) => c.type === 'acTL');
  const frames = actl ? new DataView(b.buffer, b.byteOffset + actl.data, 4).getUint32(0) : 1;
  if (frames <= 1) return { format: 'png', animated: false };
  const kept = chunks.filter((c) => c.type !== 'acTL' && c.type !== 'fcTL' && c.type !== 'fdAT');
  const still = new Uint8Array(8 + kept.reduce((n, c) => n + c.end - c.start, 0));
  still.set(b.subarray(0, 8));
  let at = 8;
  for (const c of kept) {
    still.set(b.subarray(c.start, c.end), at);
    at += c.end - c.start;
  }
  return { format: 'png', animated: true, still };
}

/** RIFF chunks of a WebP file (or of an ANMF frame's payload): 4-byte type, LE size, even padding. */
function riffChunks(b: Uint8Array, from: number, to: number): { type: string; data: number; size: number }[] {
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const chunks = [];
  for (let at = from; at + 8 <= to; ) {
    const type = String.fromCharCode(...b.subarray(at, at + 4));
    const size = view.getUint32(at + 4, true);
    need(b, at + 8 + size);
    chunks.push({ type, data: at + 8, size });
    at += 8 + size + (size & 1);
  }
  return chunks;
}

function riffChunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(8 + data.length + (data.length & 1));
  out.set([...type].map((c) => c.charCodeAt(0)));
  new DataView(out.buffer).setUint32(4, data.length, true);
  out.set(data, 8);
  return out;
}

/**
 * An animated WebP is a VP8X header and ANMF frames, each holding an optional ALPH chunk and
 * the frame's VP8 or VP8L bitstream. The still is a WebP of the first frame's chunks: a VP8X
 * header with the alpha flag when there is an ALPH chunk, else the bitstream alone.
 */
function webp(b: Uint8Array): ImageInfo {
  const chunks = riffChunks(b, 12, b.length);
  const frames = chunks.filter((c) => c.type === 'ANMF');
  if (frames.length <= 1) {
    if (!chunks.some((c) => c.type === 'VP8 ' || c.type === 'VP8L' || c.type === 'ANMF')) throw new Truncated();
    return { format: 'webp', animated: false };
  }
  const first = frames[0];
  need(b, first.data + 16);
  const width = b[first.data + 6] | (b[first.data + 7] << 8) | (b[first.data + 8] << 16);
  const height = b[first.data + 9] | (b[first.data + 10] << 8) | (b[first.data + 11] << 16);
  const inner = riffChunks(b, first.data + 16, first.data + first.size);
  const parts = inner.filter((c) => c.type === 'ALPH' || c.type === 'VP8 ' || c.type === 'VP8L').map((c) => riffChunk(c.type, b.subarray(c.data, c.data + c.size)));
  if (!inner.some((c) => c.type === 'VP8 ' || c.type === 'VP8L')) throw new Truncated();
  if (inner.some((c) => c.type === 'ALPH')) {
    const header = new Uint8Array(10);
    header[0] = 0x10;
    header.set([width & 0xff, (width >> 8) & 0xff, (width >> 16) & 0xff, height & 0xff, (height >> 8) & 0xff, (height >> 16) & 0xff], 4);
    parts.unshift(riffChunk('VP8X', header));
  }
  const body = new Uint8Array(4 + parts.reduce((n, p) => n + p.length, 0));
  body.set([0x57, 0x45, 0x42, 0x50]);
  let at = 4;
  for (const p of parts) {
    body.set(p, at);
    at += p.length;
  }
  return { format: 'webp', animated: true, still: riffChunk('RIFF', body) };
}
