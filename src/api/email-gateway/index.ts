import { badRequest } from '../../lib/errors.js';
import { flush, outbox } from '../../shard/outbox.js';
import { accessBotById } from '../bots/checks.js';
import { me, operation } from '../../api-kit/operation.js';
import { hasContentAccess } from '../streams/access.js';
import { channelEmailToken, emailGatewayBot, encodeEmailAddress, gatewayDomain } from './address.js';

/**
 * GET /streams/{stream_id}/email_address (get_stream_email_address): the channel's address for
 * the email gateway, posting as the Email Gateway bot (default), the requester, or a bot of
 * theirs (`sender_id`). Empty when the gateway is off, as the reference answers without an
 * EMAIL_GATEWAY_PATTERN.
 */
const emailAddress = operation<{ stream_id: number; sender_id?: number }>({
  auth: 'user',
  params: { properties: { stream_id: { type: 'integer' }, sender_id: { type: 'integer', minimum: 0 } }, required: ['stream_id'] },
  handler: async (ctx) => {
    const { shard, realm, params } = ctx;
    const user = me(ctx);
    const stream = realm.streams.get(params.stream_id);
    if (!stream || !hasContentAccess(realm, user, stream)) throw badRequest('Invalid channel ID');
    const gateway = await emailGatewayBot(shard, realm);
    let senderId = gateway.id;
    if (params.sender_id !== undefined && params.sender_id !== gateway.id) senderId = params.sender_id === user.id ? user.id : accessBotById(realm, user, params.sender_id).id;
    if (!shard.config.emailGateway.enabled) return { email: '' };
    const out = outbox(shard);
    const token = channelEmailToken(shard, out.batch, realm, stream.id, user.id, senderId);
    await flush(shard, realm, out);
    return { email: encodeEmailAddress(gatewayDomain(shard), stream.name, token, true) };
  },
});

export const operations = { 'streams.emailAddress': emailAddress };
