import { createHash, createHmac, randomInt, timingSafeEqual } from 'node:crypto';
import { escapeAll as h } from '../../markdown/preprocess.js';
import { htmlPage } from '../../api-kit/html-page.js';
import type { Shard } from '../../shard/shard.js';
import { me, operation, type Reply } from '../../api-kit/operation.js';

/**
 * GET /calls/bigbluebutton/create, after the reference's get_bigbluebutton_url: a join link for a
 * new meeting, its details signed so that a user cannot edit the link into another meeting on
 * the same BigBlueButton server. The reference answers it whether or not a BigBlueButton server
 * is configured, and refuses at the join link when none is (`bigBlueButton` in the config).
 *
 * GET /calls/bigbluebutton/join, after its join_bigbluebutton: creates the meeting on the
 * BigBlueButton server (its API's `create`, checksummed with the shared secret; creating an
 * existing meeting is harmless) and sends the browser to its `join` URL, as moderator for the
 * call's creator and viewer for everyone else.
 */

/**
 * Join links are posted in messages and opened later, maybe after the organization moved to
 * another node: signed with the realm's own key, which moves with it. Links signed before the
 * realms had keys used the shard's, which still verifies them where they were made.
 */
const realmKey = (ctx: { shard: Shard; realm: { id: number } }) => ctx.shard.realmSigningKey(ctx.realm.id, 'bigbluebutton');

const create = operation<{ meeting_name: string; voice_only?: boolean }>({
  auth: 'user',
  params: { properties: { meeting_name: { type: 'string' }, voice_only: { type: 'boolean' } }, required: ['meeting_name'] },
  handler: async (ctx) => {
    const meeting = {
      meeting_id: `zulip-${randomInt(100_000_000_000, 999_999_999_999)}`,
      name: ctx.params.meeting_name,
      lock_settings_disable_cam: ctx.params.voice_only ?? false,
      // Since feature level 337 only the call's creator is its moderator.
      moderator: me(ctx).id,
    };
    const payload = Buffer.from(JSON.stringify(meeting)).toString('base64url');
    const signature = createHmac('sha256', await realmKey(ctx)).update(payload).digest('base64url');
    return { url: `/calls/bigbluebutton/join?bigbluebutton=${payload}:${signature}` };
  },
});

interface Meeting {
  meeting_id: string;
  name: string;
  lock_settings_disable_cam: boolean;
  moderator: number;
}

function unsign(key: Buffer, link: string | undefined): Meeting | null {
  const [payload, signature] = (link ?? '').split(':');
  if (!payload || !signature) return null;
  const expected = createHmac('sha256', key).update(payload).digest();
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  return JSON.parse(Buffer.from(payload, 'base64url').toString()) as Meeting;
}

const page = (status: number, title: string, text: string): Reply => htmlPage(status, title, `<h1>${h(title)}</h1>\n<p>${text}</p>`);

/** A BigBlueButton API call's query string with its checksum: sha256(call + query + secret). */
function bbbQuery(call: string, params: Record<string, string>, secret: string): string {
  const query = Object.entries(params).map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&');
  return `${query}&checksum=${createHash('sha256').update(call + query + secret).digest('hex')}`;
}

const xmlField = (xml: string, name: string) => new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml)?.[1];

const join = operation<{ bigbluebutton?: string }>({
  auth: 'optional',
  params: { properties: { bigbluebutton: { type: 'string' } } },
  handler: async (ctx) => {
    const { url, secret } = ctx.shard.config.bigBlueButton;
    if (!url || !secret) {
      return { __reply: page(400, 'BigBlueButton is not configured.', 'The administrator of this server sets <code>bigBlueButton.url</code> and <code>bigBlueButton.secret</code> in its configuration (see docs/OPERATIONS.md); or the organization chooses another video call provider in its settings.') };
    }
    if (!ctx.user) return { __reply: page(401, 'Log in to join this call', `Log in to <code>${h(ctx.realm.url)}</code> in this browser, then open the call link again.`) };
    const meeting = unsign(await realmKey(ctx), ctx.params.bigbluebutton) ?? unsign(ctx.shard.signingKey('bigbluebutton'), ctx.params.bigbluebutton);
    if (!meeting) return { __reply: page(400, 'Invalid signature.', 'This call link is damaged: open it again from its message.') };
    const base = url.endsWith('/') ? url : `${url}/`;
    let xml: string;
    try {
      const res = await fetch(`${base}api/create?${bbbQuery('create', { meetingID: meeting.meeting_id, name: meeting.name, lockSettingsDisableCam: String(meeting.lock_settings_disable_cam) }, secret)}`, { signal: AbortSignal.timeout(15_000) });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      xml = await res.text();
    } catch {
      return { __reply: page(502, 'Error connecting to the BigBlueButton server.', 'Try again in a moment; if it goes on, tell the administrator of this server.') };
    }
    if (xmlField(xml, 'messageKey') === 'checksumError') return { __reply: page(502, 'Error authenticating to the BigBlueButton server.', 'The server\'s <code>bigBlueButton.secret</code> is not the BigBlueButton server\'s.') };
    const createTime = xmlField(xml, 'createTime');
    if (xmlField(xml, 'returncode') !== 'SUCCESS' || !createTime) return { __reply: page(502, 'BigBlueButton server returned an unexpected error.', 'Try again in a moment.') };
    const user = me(ctx);
    const query = bbbQuery('join', { meetingID: meeting.meeting_id, role: meeting.moderator === user.id ? 'MODERATOR' : 'VIEWER', fullName: user.fullName, createTime }, secret);
    return { __reply: { status: 302, body: '', headers: { location: `${base}api/join?${query}`, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' } } };
  },
});

export const operations = {
  'calls.bigBlueButtonCreate': create,
  'calls.bigBlueButtonJoin': join,
};
