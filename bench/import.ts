import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Outcome } from './scenarios.js';

/**
 * IMP: `stoa realm import` of a reference-format export (zerver/lib/export.py's layout) of N
 * messages, timed from spawn to exit. The export is generated here: 50 people, 10 channels of 5
 * to 14 subscribers, one message in ten a direct message, a UserMessage row per recipient (read,
 * but the last 1,000), a reaction on every hundredth message, and an upload. It is a time
 * against a fixed target (the 5 minutes for a million), not a ratio: the import runs
 * no server and no baseline applies; the machine's load at the time is reported beside it.
 */
const CLI = fileURLToPath(new URL('../src/cli/stoa.js', import.meta.url));
const USERS = 50;
const CHANNELS = 10;
const T0 = 1_600_000_000;

function subscribersOf(channel: number): number[] {
  const count = 5 + channel;
  return Array.from({ length: count }, (_, i) => 1 + ((channel * 7 + i * 3) % USERS)).filter((v, i, a) => a.indexOf(v) === i);
}

export function writeExport(dir: string, messages: number): void {
  mkdirSync(join(dir, 'uploads', '1', 'aa', 'benchfile'), { recursive: true });
  const users = Array.from({ length: USERS }, (_, i) => ({ id: i + 1, email: `user${i + 1}@bench.test`, delivery_email: `user${i + 1}@bench.test`, full_name: `User ${i + 1}`, role: i === 0 ? 100 : 400, is_active: true, is_bot: false, bot_type: null, bot_owner: null, date_joined: T0, timezone: 'UTC', avatar_source: 'G', avatar_version: 1, realm: 1 }));
  const recipients = [...users.map((u) => ({ id: 1000 + u.id, type: 1, type_id: u.id })), ...Array.from({ length: CHANNELS }, (_, c) => ({ id: 2000 + c, type: 2, type_id: 100 + c }))];
  let subId = 1;
  const subscriptions = [
    ...users.map((u) => ({ id: subId++, user_profile: u.id, recipient: 1000 + u.id, active: true, color: '#76ce90' })),
    ...Array.from({ length: CHANNELS }, (_, c) => subscribersOf(c).map((u) => ({ id: subId++, user_profile: u, recipient: 2000 + c, active: true, color: '#76ce90' }))).flat(),
  ];
  const streams = Array.from({ length: CHANNELS }, (_, c) => ({ id: 100 + c, name: `channel ${c}`, description: '', invite_only: false, history_public_to_subscribers: true, realm: 1, date_created: T0 }));
  const reactions: unknown[] = [];
  for (let id = 1; id <= messages; id += 100) reactions.push({ id, message: id, user_profile: 1 + (id % USERS), emoji_name: '+1', emoji_code: '1f44d', reaction_type: 'unicode_emoji' });
  writeFileSync(join(dir, 'realm.json'), JSON.stringify({ zerver_realm: [{ id: 1, string_id: 'bench', name: 'Bench', description: '', date_created: T0 }], zerver_userprofile: users, zerver_userprofile_mirrordummy: [], zerver_userprofile_crossrealm: [], zerver_stream: streams, zerver_recipient: recipients, zerver_subscription: subscriptions, zerver_reaction: reactions, zerver_client: [{ id: 1, name: 'website' }], import_source: 'zulip' }));
  let um = 1;
  for (let file = 0; file * 1000 < messages; file++) {
    const ms: string[] = [];
    const ums: string[] = [];
    for (let id = file * 1000 + 1; id <= Math.min(messages, (file + 1) * 1000); id++) {
      const sender = 1 + (id % USERS);
      const dm = id % 10 === 9;
      const recipient = dm ? 1000 + 1 + ((id * 7) % USERS) : 2000 + (id % CHANNELS);
      const topic = dm ? '' : `topic ${(id >> 4) % 20}`;
      const text = `message ${id} about the release plan and lunch ${id % 97}`;
      const attachment = id === 1 ? ' [file](/user_uploads/1/aa/benchfile/notes.txt)' : '';
      ms.push(JSON.stringify({ id, sender, recipient, realm: 1, subject: topic, content: text + attachment, rendered_content: `<p>${text}${attachment ? ' <a href="/user_uploads/1/aa/benchfile/notes.txt">file</a>' : ''}</p>`, date_sent: T0 + id, sending_client: 1, last_edit_time: null, edit_history: null, has_attachment: id === 1, has_image: false, has_link: id === 1 }));
      const readers = dm ? [sender, recipient - 1000] : [...new Set([sender, ...subscribersOf(id % CHANNELS)])];
      for (const u of new Set(readers)) ums.push(`{"id":${um++},"user_profile":${u},"message":${id},"flags_mask":${id > messages - 1000 && u !== sender ? 0 : 1}}`);
    }
    writeFileSync(join(dir, `messages-${String(file + 1).padStart(6, '0')}.json`), `{"zerver_message":[${ms.join(',')}],"zerver_usermessage":[${ums.join(',')}]}`);
  }
  writeFileSync(join(dir, 'attachment.json'), JSON.stringify({ zerver_attachment: [{ id: 1, file_name: 'notes.txt', path_id: '1/aa/benchfile/notes.txt', owner: 2, size: 6, create_time: T0, content_type: 'text/plain', messages: [1], scheduled_messages: [] }] }));
  writeFileSync(join(dir, 'uploads', '1', 'aa', 'benchfile', 'notes.txt'), 'notes\n');
  writeFileSync(join(dir, 'uploads', 'records.json'), JSON.stringify([{ realm_id: 1, user_profile_id: 2, s3_path: '1/aa/benchfile/notes.txt', path: '1/aa/benchfile/notes.txt', size: 6 }]));
}

export async function importSpeed(messages: number, log: (line: string) => void): Promise<Outcome> {
  const work = mkdtempSync(join(tmpdir(), 'stoa-bench-import-'));
  try {
    const dir = join(work, 'export');
    mkdirSync(dir);
    let started = Date.now();
    writeExport(dir, messages);
    log(`IMP: generated a ${messages}-message export in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    const loadBefore = loadavg()[0];
    started = Date.now();
    const result = await new Promise<{ code: number; stderr: string }>((resolve) => {
      execFile(process.execPath, [CLI, 'realm', 'import', dir, '--subdomain', 'bench'], { env: { ...process.env, STOA_DATA_DIR: join(work, 'data'), STOA_PORT: '9991' }, maxBuffer: 64 * 1024 * 1024 }, (err, _stdout, stderr) =>
        resolve({ code: err ? 1 : 0, stderr }),
      );
    });
    const seconds = (Date.now() - started) / 1000;
    if (result.code !== 0) throw new Error(`IMP: the import failed: ${result.stderr.slice(-2000)}`);
    const phases = Object.fromEntries([...result.stderr.matchAll(/import: (\w[\w ]*) \((\d+)\) at ([\d.]+)s/g)].map((m) => [m[1], Number(m[3])]));
    const limit = (300 * messages) / 1_000_000;
    return {
      id: 'IMP',
      title: `stoa realm import of a ${messages}-message reference export`,
      target: `<= ${limit} s (5 min per million)`,
      value: `${seconds.toFixed(1)} s (${Math.round(messages / seconds)} msg/s)`,
      // Start-up and the fixed phases dominate a small run (--quick): the target is judged at scale.
      pass: messages >= 100_000 ? seconds <= limit : null,
      details: { messages, seconds, messagesPerSecond: Math.round(messages / seconds), phaseStartSeconds: phases, loadAverageBefore: loadBefore, loadAverageAfter: loadavg()[0], cpus: cpus().length },
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
