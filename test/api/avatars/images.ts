import sharp from 'sharp';
import type { FilePart } from '../../helpers/upload.js';

/** Real images for avatar tests, made with sharp (no image files in the repository). */
export const redPng = () => sharp({ create: { width: 300, height: 200, channels: 3, background: '#c00' } }).png().toBuffer();
export const greenJpeg = () => sharp({ create: { width: 40, height: 90, channels: 3, background: '#0c0' } }).jpeg().toBuffer();

export const part = (content: Buffer | string, filename = 'me.png', contentType = 'image/png'): FilePart => ({ filename, content, contentType });

/** Width and height of an image the server sent, and its format. */
export async function dimensions(bytes: Buffer): Promise<{ width?: number; height?: number; format?: string }> {
  const m = await sharp(bytes).metadata();
  return { width: m.width, height: m.height, format: m.format };
}
