import { readFile } from 'node:fs/promises';
import { badRequest, notFound } from '../../lib/errors.js';
import type { RealmState } from '../../model/realm-state.js';
import { realmImageUrl } from '../../model/realm-settings.js';
import type { RealmImage } from '../../model/types.js';
import type { Shard } from '../../shard/shard.js';
import { readAvatarImage } from '../../store/avatars.js';
import { ACCEPTED_IMAGE_TYPES, badImage, scaleRealmImage } from '../avatars/image.js';
import { operation, type Reply } from '../../api-kit/operation.js';
import type { UploadedFile } from '../uploads/index.js';
import { checkTmpPath, contentTypeFor } from '../uploads/files.js';

/**
 * The organization's icon, logo and night logo, after the reference's zerver/views/realm_icon.py
 * and realm_logo.py: POST and DELETE /realm/icon and /realm/logo (`night` picks the night logo),
 * administrators only. The image, scaled by sharp as avatars are, is stored in the shard's
 * `avatars` table under `realm/<image>.png` in the transaction that sets `<image>_source` and
 * bumps its version; it is served without credentials at /user_avatars/<realm id>/realm/<image>.png,
 * as the reference's web server serves it. A removal goes back to the default image.
 */

/** The reference's MAX_ICON_FILE_SIZE_MIB and MAX_LOGO_FILE_SIZE_MIB. */
const MAX_FILE_SIZE_MIB = 5;

const fileKey = (image: RealmImage) => `realm/${image}.png`;

async function doSetImage(shard: Shard, realm: RealmState, image: RealmImage, bytes: Uint8Array | null): Promise<void> {
  const version = (realm.realm.imageVersions?.[image] ?? 0) + 1;
  const source = bytes ? 'U' : image === 'icon' ? 'G' : 'D';
  realm.realm = { ...realm.realm, settings: { ...realm.realm.settings, [`${image}_source`]: source }, imageVersions: { ...realm.realm.imageVersions, [image]: version } };
  const batch = shard.batch();
  batch.put(shard.store.realms, realm.id, realm.realm);
  if (bytes) batch.put(shard.store.avatars, [realm.id, fileKey(image)], bytes);
  else batch.del(shard.store.avatars, [realm.id, fileKey(image)]);
  const url = realmImageUrl(realm, image, realm.url);
  const data = image === 'icon' ? { icon_source: source, icon_url: url } : { [`${image}_source`]: source, [`${image}_url`]: url };
  batch.emit(realm.id, { type: 'realm', op: 'update_dict', property: image, data }, realm.activeUserIds());
  await batch.commit();
}

async function imageFromUpload(shard: Shard, files: UploadedFile[], image: RealmImage): Promise<Uint8Array> {
  const noun = image === 'icon' ? 'icon' : 'logo';
  if (files.length !== 1) throw badRequest(`You must upload exactly one ${noun}.`);
  const [file] = files;
  if (file.size > MAX_FILE_SIZE_MIB * 1024 * 1024) throw badRequest(`Uploaded file is larger than the allowed limit of ${MAX_FILE_SIZE_MIB} MiB`);
  const type = contentTypeFor(file.filename, file.contentType).split(';')[0].trim().toLowerCase();
  if (!ACCEPTED_IMAGE_TYPES.has(type)) throw badImage('Invalid image format');
  return scaleRealmImage(await readFile(checkTmpPath(shard.config.dataDir, file.tmpPath)), image === 'icon' ? 'icon' : 'logo');
}

const filesParam = { __files: { type: 'array', items: { type: 'object' } } };

const setIcon = operation<{ __files?: UploadedFile[] }>({
  auth: 'user',
  role: 'administrator',
  params: { properties: filesParam },
  handler: async (ctx) => {
    await doSetImage(ctx.shard, ctx.realm, 'icon', await imageFromUpload(ctx.shard, ctx.params.__files ?? [], 'icon'));
    return { icon_url: realmImageUrl(ctx.realm, 'icon', ctx.realm.url) };
  },
});

const removeIcon = operation({
  auth: 'user',
  role: 'administrator',
  handler: async (ctx) => {
    await doSetImage(ctx.shard, ctx.realm, 'icon', null);
    return { icon_url: realmImageUrl(ctx.realm, 'icon', ctx.realm.url) };
  },
});

// `night` has no default in the reference: it must be sent.
const logoParams = { properties: { ...filesParam, night: { type: 'boolean' } }, required: ['night'] };

const setLogo = operation<{ __files?: UploadedFile[]; night: boolean }>({
  auth: 'user',
  role: 'administrator',
  params: logoParams,
  handler: async (ctx) => {
    const image = ctx.params.night ? 'night_logo' : 'logo';
    await doSetImage(ctx.shard, ctx.realm, image, await imageFromUpload(ctx.shard, ctx.params.__files ?? [], image));
    return {};
  },
});

const removeLogo = operation<{ night: boolean }>({
  auth: 'user',
  role: 'administrator',
  params: logoParams,
  handler: async (ctx) => {
    await doSetImage(ctx.shard, ctx.realm, ctx.params.night ? 'night_logo' : 'logo', null);
    return {};
  },
});

const file = operation<{ realm_id_str: string; file_name: string }>({
  auth: 'none',
  params: { properties: { realm_id_str: { type: 'string' }, file_name: { type: 'string' } }, required: ['realm_id_str', 'file_name'] },
  handler: (ctx) => {
    const { realm_id_str: realmId, file_name: name } = ctx.params;
    if (realmId !== String(ctx.realm.id) || !/^(?:icon|logo|night_logo)\.png$/.test(name)) throw notFound();
    const bytes = readAvatarImage(ctx.shard, ctx.realm.id, `realm/${name}`);
    if (!bytes) throw notFound();
    // The URL carries the version, so a new image has a new URL; this one may be cached.
    const reply: Reply = { status: 200, body: '', bytes, headers: { 'Content-Type': 'image/png', 'Cache-Control': 'public, max-age=86400', 'X-Content-Type-Options': 'nosniff' } };
    return { __reply: reply };
  },
});

export const operations = {
  'realmImages.setIcon': setIcon,
  'realmImages.removeIcon': removeIcon,
  'realmImages.setLogo': setLogo,
  'realmImages.removeLogo': removeLogo,
  'realmImages.file': file,
};
