import { badRequest } from '../../lib/errors.js';
import { me, operation } from '../../api-kit/operation.js';
import { MAX_WELCOME_TEXT_LENGTH } from './index.js';
import { direct, welcomeBot } from './onboarding.js';

/**
 * POST /realm/test_welcome_bot_custom_message (Zulip 11): an administrator previews a custom
 * Welcome Bot text by getting it, as a new user would, in a direct message from Welcome Bot.
 * Answers the message's id.
 */
const testWelcome = operation<{ welcome_message_custom_text: string }>({
  auth: 'user',
  role: 'administrator',
  params: {
    properties: { welcome_message_custom_text: { type: 'string', maxLength: MAX_WELCOME_TEXT_LENGTH } },
    required: ['welcome_message_custom_text'],
  },
  handler: async (ctx) => {
    const text = ctx.params.welcome_message_custom_text.trim();
    if (text === '') throw badRequest('Welcome message cannot be empty.');
    const bot = await welcomeBot(ctx.shard, ctx.realm);
    const message = await direct(ctx.shard, ctx.realm, bot, me(ctx), text, true);
    return { welcome_bot_custom_message_id: message.id };
  },
});

export const welcomeTestOperations = { 'realm.testWelcomeBotCustomMessage': testWelcome };
