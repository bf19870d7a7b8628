import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { LEGACY_DISPLAY, LEGACY_NOTIFICATIONS } from '../../../src/model/user-settings.js';
import { CAPABILITIES, convergenceHarness, type ConvergeOptions, type Viewer } from '../../helpers/convergence.js';
import { browse } from '../../helpers/browser-http.js';
import { createUser, startTestServer } from '../../helpers/server.js';

t.test('settings changes converge with a fresh snapshot', async (t) => {
  const ts = await startTestServer(t);
  const ann = await createUser(ts, 'ann@example.com', 'Ann');
  const bob = await createUser(ts, 'bob@example.com', 'Bob');
  const viewers: Viewer[] = [ts.owner, ann, bob];
  const { ok, converges } = convergenceHarness(t, ts);

  const modes: [string, ConvergeOptions][] = [
    ['with user_settings_object', { sections: ['user_settings', 'full_name'] }],
    [
      'without user_settings_object',
      {
        register: { client_capabilities: { ...CAPABILITIES, user_settings_object: false } },
        sections: ['user_settings', 'full_name', 'timezone', ...LEGACY_DISPLAY, ...LEGACY_NOTIFICATIONS],
      },
    ],
  ];
  let round = 0;
  for (const [mode, options] of modes) {
    round++;
    const settings = round === 1
      ? { high_contrast_mode: true, enable_sounds: false, color_scheme: 2, default_language: 'fr', web_font_size_px: 15, notification_sound: 'ding' }
      : { high_contrast_mode: false, enable_sounds: true, color_scheme: 3, default_language: 'de', web_font_size_px: 17, notification_sound: 'none' };
    await converges(`${mode}: preference settings`, () => ok(ann, 'PATCH', '/settings', settings), viewers, options);
    await converges(`${mode}: a full name`, () => ok(ann, 'PATCH', '/settings', { full_name: `Ann ${round}` }), viewers, options);
    await converges(`${mode}: a time zone`, () => ok(ann, 'PATCH', '/settings', { timezone: round === 1 ? 'Europe/Paris' : 'America/Chicago' }), viewers, options);
    await converges(`${mode}: the deprecated alias`, () => ok(ann, 'PATCH', '/settings/display', { left_side_userlist: round === 1, twenty_four_hour_time: round === 1 }), viewers, options);
  }

  // The link goes to the outbox (no mail server here); ann's credentials follow her address.
  for (const [gravatar, email] of [[true, 'ann@example.org'], [false, 'ann@example.net']] as const) {
    await converges(
      `an address change, confirmed (client_gravatar: ${gravatar})`,
      async () => {
        await ok(ann, 'PATCH', '/settings', { email });
        const key = await linkKey(ts.dataDir, email);
        const done = await browse(ts, 'POST', '/accounts/confirm_new_email/', { form: { key } });
        if (done.status !== 200) throw new Error(`confirming failed: ${done.status}`);
        ann.email = email;
      },
      viewers,
      { register: { client_gravatar: gravatar }, sections: ['email', 'delivery_email', 'avatar_url'] },
    );
  }
});

/** The key of the address-change link in the outbox's mail to `address`. */
async function linkKey(dataDir: string, address: string): Promise<string> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    let files: string[] = [];
    try {
      files = readdirSync(join(dataDir, 'outbox')).filter((f) => f.endsWith('.eml'));
    } catch {
      // no outbox yet
    }
    for (const f of files) {
      const mail = readFileSync(join(dataDir, 'outbox', f), 'utf8').replace(/=\r?\n/g, '');
      const key = new RegExp(`^To: ${address}$`, 'm').test(mail) && /\/accounts\/confirm_new_email\/([A-Za-z0-9_-]{43})/.exec(mail)?.[1];
      if (key) return key;
    }
    if (Date.now() > deadline) throw new Error(`no link mailed to ${address}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
