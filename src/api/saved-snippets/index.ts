import { badRequest } from '../../lib/errors.js';
import { me, operation } from '../../api-kit/operation.js';
import { checkSnippetText, doCreateSnippet, doDeleteSnippet, doEditSnippet, listSnippets, snippetView } from './actions.js';

/** GET, POST /saved_snippets; PATCH, DELETE /saved_snippets/{saved_snippet_id}. */

const list = operation({
  auth: 'user',
  handler: (ctx) => ({ saved_snippets: listSnippets(ctx.shard, ctx.realm, me(ctx).id).map(snippetView) }),
});

const create = operation<{ title: string; content: string }>({
  auth: 'user',
  params: { properties: { title: { type: 'string' }, content: { type: 'string' } }, required: ['title', 'content'] },
  handler: async (ctx) => {
    const title = checkSnippetText('title', ctx.params.title);
    const content = checkSnippetText('content', ctx.params.content);
    return { saved_snippet_id: await doCreateSnippet(ctx.shard, ctx.realm, me(ctx), title, content) };
  },
});

const edit = operation<{ saved_snippet_id: number; title?: string; content?: string }>({
  auth: 'user',
  params: { properties: { saved_snippet_id: { type: 'integer' }, title: { type: 'string' }, content: { type: 'string' } }, required: ['saved_snippet_id'] },
  handler: async (ctx) => {
    const p = ctx.params;
    if (p.title === undefined && p.content === undefined) throw badRequest('No new data is supplied');
    const change: { title?: string; content?: string } = {};
    if (p.title !== undefined) change.title = checkSnippetText('title', p.title);
    if (p.content !== undefined) change.content = checkSnippetText('content', p.content);
    await doEditSnippet(ctx.shard, ctx.realm, me(ctx), p.saved_snippet_id, change);
    return {};
  },
});

const remove = operation<{ saved_snippet_id: number }>({
  auth: 'user',
  params: { properties: { saved_snippet_id: { type: 'integer' } }, required: ['saved_snippet_id'] },
  handler: async (ctx) => {
    await doDeleteSnippet(ctx.shard, ctx.realm, me(ctx), ctx.params.saved_snippet_id);
    return {};
  },
});

export const operations = {
  'savedSnippets.list': list,
  'savedSnippets.create': create,
  'savedSnippets.edit': edit,
  'savedSnippets.remove': remove,
};
