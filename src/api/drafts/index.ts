import { me, operation } from '../../api-kit/operation.js';
import { checkDraft, checkDraftsEnabled, checkOwnDraft, doCreateDrafts, doDeleteDraft, doEditDraft, draftView, listDrafts } from './actions.js';
import { parseDraft } from './validate.js';

/** GET, POST /drafts; PATCH, DELETE /drafts/{draft_id}. Each user sees only their own drafts. */

const list = operation({
  auth: 'user',
  handler: (ctx) => {
    const user = me(ctx);
    checkDraftsEnabled(user);
    const drafts = listDrafts(ctx.shard, ctx.realm, user.id).map(draftView);
    return { count: drafts.length, drafts };
  },
});

const create = operation<{ drafts: unknown[] }>({
  auth: 'user',
  params: { properties: { drafts: { type: 'array' } }, required: ['drafts'] },
  handler: async (ctx) => {
    const user = me(ctx);
    checkDraftsEnabled(user);
    // Every draft is checked before any is made: one bad draft creates none.
    const inputs = ctx.params.drafts.map((d, i) => parseDraft(d, `drafts[${i}]`));
    const drafts = inputs.map((input) => checkDraft(ctx.realm, user, input));
    return { ids: await doCreateDrafts(ctx.shard, ctx.realm, user, drafts) };
  },
});

const edit = operation<{ draft_id: number; draft: unknown }>({
  auth: 'user',
  params: { properties: { draft_id: { type: 'integer' }, draft: { type: 'object' } }, required: ['draft_id', 'draft'] },
  handler: async (ctx) => {
    const user = me(ctx);
    checkDraftsEnabled(user);
    const input = parseDraft(ctx.params.draft, 'draft');
    checkOwnDraft(ctx.shard, ctx.realm, user, ctx.params.draft_id);
    await doEditDraft(ctx.shard, ctx.realm, user, ctx.params.draft_id, checkDraft(ctx.realm, user, input));
    return {};
  },
});

const remove = operation<{ draft_id: number }>({
  auth: 'user',
  params: { properties: { draft_id: { type: 'integer' } }, required: ['draft_id'] },
  handler: async (ctx) => {
    const user = me(ctx);
    checkDraftsEnabled(user);
    await doDeleteDraft(ctx.shard, ctx.realm, user, ctx.params.draft_id);
    return {};
  },
});

export const operations = {
  'drafts.list': list,
  'drafts.create': create,
  'drafts.edit': edit,
  'drafts.remove': remove,
};
