import { me, operation } from '../../api-kit/operation.js';
import { renderMessage } from './render.js';

/**
 * POST /messages/render: the HTML a message with this content would get, from the renderer that
 * sending uses (the reference's preview). Nothing is stored and nobody is notified.
 */
const render = operation<{ content: string }>({
  auth: 'user',
  params: { properties: { content: { type: 'string' } }, required: ['content'] },
  handler: (ctx) => ({ rendered: renderMessage(ctx.params.content, { realm: ctx.realm, sender: me(ctx) }).html }),
});

export const operations = {
  'messages.render': render,
};
