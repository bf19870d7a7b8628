import { operation } from '../../api-kit/operation.js';
import { checkPygmentsLanguage, doAddPlayground, doRemovePlayground } from './actions.js';

/** POST /realm/playgrounds and DELETE /realm/playgrounds/{playground_id}: administrators only. */
const add = operation<{ name: string; pygments_language: string; url_template: string }>({
  auth: 'user',
  role: 'administrator',
  params: {
    properties: { name: { type: 'string' }, pygments_language: { type: 'string' }, url_template: { type: 'string' } },
    required: ['name', 'pygments_language', 'url_template'],
  },
  handler: async (ctx) => {
    const p = ctx.params;
    checkPygmentsLanguage(p.pygments_language);
    // The reference strips all three before validating and storing them.
    const id = await doAddPlayground(ctx.shard, ctx.realm, { name: p.name.trim(), pygmentsLanguage: p.pygments_language.trim(), urlTemplate: p.url_template.trim() });
    return { id };
  },
});

const remove = operation<{ playground_id: number }>({
  auth: 'user',
  role: 'administrator',
  params: { properties: { playground_id: { type: 'integer' } }, required: ['playground_id'] },
  handler: async (ctx) => {
    await doRemovePlayground(ctx.shard, ctx.realm, ctx.params.playground_id);
    return {};
  },
});

export const operations = {
  'playgrounds.add': add,
  'playgrounds.remove': remove,
};
