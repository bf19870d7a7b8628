import { createHmac, randomBytes, randomInt } from 'node:crypto';
import { htmlPage } from '../html-page.js';
import { me, operation } from '../operation.js';

/**
 * GET /calls/bigbluebutton/create, after the reference's get_bigbluebutton_url: a join link for a
 * new meeting, its details signed so that a user cannot edit the link into another meeting on
 * the same BigBlueButton server. The reference answers it whether or not a BigBlueButton server
 * is configured, and refuses at the join link when none is; this server has no BigBlueButton
 * settings, so /calls/bigbluebutton/join always answers that it is not configured.
 */

/** Lives as long as the shard thread: links are made to be used right away. */
const SIGNING_KEY = randomBytes(32);

const create = operation<{ meeting_name: string; voice_only?: boolean }>({
  auth: 'user',
  params: { properties: { meeting_name: { type: 'string' }, voice_only: { type: 'boolean' } }, required: ['meeting_name'] },
  handler: (ctx) => {
    const meeting = {
      meeting_id: `zulip-${randomInt(100_000_000_000, 999_999_999_999)}`,
      name: ctx.params.meeting_name,
      lock_settings_disable_cam: ctx.params.voice_only ?? false,
      // Since feature level 337 only the call's creator is its moderator.
      moderator: me(ctx).id,
    };
    const payload = Buffer.from(JSON.stringify(meeting)).toString('base64url');
    const signature = createHmac('sha256', SIGNING_KEY).update(payload).digest('base64url');
    return { url: `/calls/bigbluebutton/join?bigbluebutton=${payload}:${signature}` };
  },
});

const join = operation({
  auth: 'none',
  params: { properties: { bigbluebutton: { type: 'string' } } },
  handler: () => ({ __reply: htmlPage(400, 'BigBlueButton is not configured.', '<h1>BigBlueButton is not configured.</h1>\n<p>Ask the administrator of this server to set up a BigBlueButton server for calls, or choose another video call provider in the organization settings.</p>') }),
});

export const operations = {
  'calls.bigBlueButtonCreate': create,
  'calls.bigBlueButtonJoin': join,
};
