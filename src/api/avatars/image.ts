import { ApiError } from '../../lib/errors.js';
import type { AvatarSize } from '../../store/avatars.js';

/**
 * Avatar images, scaled as the reference's resize_avatar does: turned upright by their EXIF
 * orientation, cropped to a centred square, scaled to 100x100 (and 500x500 for the medium
 * size) and written as PNG. sharp (libvips, from prebuilt packages) does the work, as pyvips does
 * in the reference; it is loaded on the first upload only, since it costs a thread's worth of
 * memory that a server whose users keep Gravatar never needs.
 */
export const AVATAR_SIZE = 100;
export const MEDIUM_AVATAR_SIZE = 500;

/** The reference's MAX_AVATAR_FILE_SIZE_MIB default (also /register's max_avatar_file_size_mib). */
export const MAX_AVATAR_FILE_SIZE_MIB = 5;

/** The reference's THUMBNAIL_ACCEPT_IMAGE_TYPES: the content types an upload may declare. */
export const ACCEPTED_IMAGE_TYPES = new Set(['image/avif', 'image/gif', 'image/heic', 'image/jpeg', 'image/png', 'image/tiff', 'image/webp']);

/**
 * The decoders the bytes may actually need, whatever type the client declared: the reference
 * blocks every libvips loader but these (no SVG, PDF or other untrusted formats).
 */
const TRUSTED_FORMATS = new Set(['gif', 'heif', 'jpeg', 'png', 'tiff', 'webp']);

export const badImage = (msg: string) => new ApiError(msg, { code: 'BAD_IMAGE' });

type Sharp = typeof import('sharp').default;
let sharpModule: Promise<Sharp> | undefined;
const loadSharp = () =>
  (sharpModule ??= import('sharp').then(({ default: sharp }) => {
    // As the reference configures pyvips: every loader blocked but the trusted ones, so that no
    // upload reaches libvips's SVG, PDF or other parsers whatever its bytes claim to be.
    sharp.block({ operation: ['VipsForeignLoad'] });
    sharp.unblock({ operation: ['VipsForeignLoadHeif', 'VipsForeignLoadNsgif', 'VipsForeignLoadJpeg', 'VipsForeignLoadPng', 'VipsForeignLoadTiff', 'VipsForeignLoadWebp'] });
    return sharp;
  }));

/** Both sizes of an avatar from the uploaded bytes; BAD_IMAGE errors for what is no image. */
export async function scaleAvatar(bytes: Uint8Array): Promise<Record<AvatarSize, Uint8Array>> {
  const scale = await scaler(bytes);
  return { small: await scale({ width: AVATAR_SIZE, height: AVATAR_SIZE, fit: 'cover', position: 'centre' }), medium: await scale({ width: MEDIUM_AVATAR_SIZE, height: MEDIUM_AVATAR_SIZE, fit: 'cover', position: 'centre' }) };
}

/** The reference's DEFAULT_LOGO_MAX_WIDTH and height: a logo fits in 800x100, never enlarged. */
const LOGO_BOX = { width: 800, height: 100, fit: 'inside', withoutEnlargement: true } as const;

/** An organization's icon (100x100, as an avatar) or logo (within 800x100), as PNG. */
export async function scaleRealmImage(bytes: Uint8Array, kind: 'icon' | 'logo'): Promise<Uint8Array> {
  const scale = await scaler(bytes);
  return scale(kind === 'icon' ? { width: AVATAR_SIZE, height: AVATAR_SIZE, fit: 'cover', position: 'centre' } : LOGO_BOX);
}

/**
 * Checks that the bytes are an image of a trusted format, and returns what scales them to PNG;
 * BAD_IMAGE errors for what is no image.
 */
async function scaler(bytes: Uint8Array): Promise<(resize: import('sharp').ResizeOptions) => Promise<Uint8Array>> {
  const sharp = await loadSharp();
  const undecodable = () => badImage('Could not decode image; did you upload an image file?');
  let format: string | undefined;
  try {
    format = (await sharp(bytes).metadata()).format;
  } catch (err) {
    throw pixelLimit(err) ? badImage('Image size exceeds limit.') : undecodable();
  }
  if (!format || !TRUSTED_FORMATS.has(format)) throw undecodable();
  return async (resize) => {
    try {
      // rotate() without an angle applies the EXIF orientation; animations keep their first frame.
      return new Uint8Array(await sharp(bytes).rotate().resize(resize).png().toBuffer());
    } catch (err) {
      throw pixelLimit(err) ? badImage('Image size exceeds limit.') : undecodable();
    }
  };
}

/** sharp refuses images over its pixel limit (about 268 megapixels), a decompression bomb. */
function pixelLimit(err: unknown): boolean {
  return err instanceof Error && /pixel limit/i.test(err.message);
}
