import { join } from 'node:path';
import { notFound } from '../../lib/errors.js';
import { userSetting } from '../../model/user-settings.js';
import { me, operation, type Reply } from '../../api-kit/operation.js';
import { checkDeleteExport, checkExport, doCreateExport, doDeleteExport, exportView, realmExport, realmExports } from './actions.js';
import { EXPORT_PUBLIC, EXPORT_STANDARD, exportsDir } from './archive.js';

/**
 * GET, POST /export/realm; DELETE /export/realm/{export_id}; GET /export/realm/consents; and the
 * archives at their export_url, /user_avatars/exports/<realm id>/<secret>/<file name>: served
 * without credentials, as the reference's web server serves its local export directory (the
 * random secret is what keeps them from being found).
 */

const list = operation({
  auth: 'user',
  role: 'administrator',
  handler: (ctx) => ({ exports: realmExports(ctx.shard, ctx.realm).map((e) => exportView(ctx.realm, e)) }),
});

const create = operation<{ export_type?: number }>({
  auth: 'user',
  role: 'administrator',
  params: { properties: { export_type: { type: 'integer', enum: [EXPORT_PUBLIC, EXPORT_STANDARD] } } },
  handler: async (ctx) => {
    const type = ctx.params.export_type ?? EXPORT_PUBLIC;
    checkExport(ctx.shard, ctx.realm, type);
    return { id: await doCreateExport(ctx.shard, ctx.realm, me(ctx), type) };
  },
});

const remove = operation<{ export_id: number }>({
  auth: 'user',
  role: 'administrator',
  params: { properties: { export_id: { type: 'integer' } }, required: ['export_id'] },
  handler: async (ctx) => {
    const e = realmExport(ctx.shard, ctx.realm, ctx.params.export_id);
    checkDeleteExport(e);
    await doDeleteExport(ctx.shard, ctx.realm, e);
    return {};
  },
});

const consents = operation({
  auth: 'user',
  role: 'administrator',
  handler: (ctx) => ({
    export_consents: [...ctx.realm.activeUsers()].filter((u) => !u.isBot).map((u) => ({ user_id: u.id, consented: userSetting(u, 'allow_private_data_export') === true })),
  }),
});

const file = operation<{ realm_id_str: string; secret: string; file_name: string }>({
  auth: 'none',
  params: { properties: { realm_id_str: { type: 'string' }, secret: { type: 'string' }, file_name: { type: 'string' } }, required: ['realm_id_str', 'secret', 'file_name'] },
  handler: (ctx) => {
    const { realm_id_str: realmId, secret, file_name: name } = ctx.params;
    const path = `${secret}/${name}`;
    const e = realmId === String(ctx.realm.id) ? realmExports(ctx.shard, ctx.realm).find((x) => x.status === 'succeeded' && x.path === path) : undefined;
    if (!e) throw notFound();
    const reply: Reply = {
      status: 200,
      body: '',
      headers: { 'Content-Type': 'application/gzip', 'Content-Disposition': `attachment; filename="${name}"`, 'Content-Length': String(e.size), 'X-Content-Type-Options': 'nosniff' },
      file: { path: join(exportsDir(ctx.shard.config.dataDir, ctx.realm.id), secret, name), contentType: 'application/gzip' },
    };
    return { __reply: reply };
  },
});

export const operations = {
  'exports.list': list,
  'exports.create': create,
  'exports.remove': remove,
  'exports.consents': consents,
  'exports.file': file,
};
