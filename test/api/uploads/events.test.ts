import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { doCreateUser } from '../../../src/api/users/actions.js';
import { ROLE, type UserRecord } from '../../../src/model/types.js';
import type { ShardEvent } from '../../../src/shard/events.js';
import { uploadsTmpDir } from '../../../src/store/uploads.js';
import { checkEvent } from '../../helpers/openapi.js';
import { inProcessShard } from '../../helpers/shard.js';

/**
 * The `attachment` events an uploader's clients get: add on upload, update when a message links
 * or stops linking the file, remove on delete. The shard runs in this process; the test plays
 * the front end's part of an upload (a temporary file, then `__files`).
 */
t.test('attachment events', async (t) => {
  const h = await inProcessShard(t, 'Files');
  const { shard, realm, dataDir } = h;
  const hamlet = await doCreateUser(shard, realm, { email: 'hamlet@example.com', fullName: 'Hamlet', role: ROLE.member });
  const othello = await doCreateUser(shard, realm, { email: 'othello@example.com', fullName: 'Othello', role: ROLE.member });

  let seen: { event: ShardEvent; userIds: number[] }[] = [];
  shard.events.subscribe((realmId, event, userIds) => {
    if (realmId === 1 && event.type === 'attachment') seen.push({ event, userIds: [...userIds] });
  });
  const call = async (user: UserRecord, op: string, params: Record<string, unknown>) => {
    seen = [];
    return h.call(user, op, params, { raw: true });
  };
  const upload = (user: UserRecord, name: string, content: string) => {
    const dir = uploadsTmpDir(dataDir);
    mkdirSync(dir, { recursive: true });
    const tmpPath = join(dir, randomBytes(16).toString('hex'));
    writeFileSync(tmpPath, content);
    return call(user, 'uploads.upload', { __files: [{ field: 'file', filename: name, tmpPath, size: content.length, contentType: 'text/plain' }] });
  };

  let attachmentId = 0;
  let url = '';

  t.test('attachment add: to the uploader, on upload', async (t) => {
    const res = await upload(hamlet, 'a.txt', 'hello');
    t.equal(res.status, 200, 'uploaded');
    url = res.body.url;
    t.equal(seen.length, 1, 'one event');
    t.same(seen[0].userIds, [hamlet.id], 'to the uploader only');
    t.match(seen[0].event, { type: 'attachment', op: 'add', attachment: { name: 'a.txt', size: 5, messages: [] }, upload_space_used: 5 }, 'the new attachment');
    t.doesNotThrow(() => checkEvent(seen[0].event), 'matches the reference schema');
    attachmentId = (seen[0].event.attachment as { id: number }).id;
  });

  t.test('attachment update: when a message links the file', async (t) => {
    const sent = await call(hamlet, 'messages.send', { type: 'stream', to: 'general', topic: 't', content: `see [a](${url})` });
    t.equal(sent.status, 200, 'sent');
    t.equal(seen.length, 1, 'one event');
    t.same(seen[0].userIds, [hamlet.id], 'to the uploader');
    t.match(seen[0].event, { type: 'attachment', op: 'update', attachment: { id: attachmentId, messages: [{ id: sent.body.id }] } }, 'with the message');
    t.doesNotThrow(() => checkEvent(seen[0].event), 'matches the reference schema');
  });

  t.test('attachment update: the uploader hears of links by others', async (t) => {
    const sent = await call(othello, 'messages.send', { type: 'stream', to: 'general', topic: 't', content: `also ${url}` });
    t.same(seen.map((s) => s.userIds), [[hamlet.id]], 'the owner, not the sender, gets the update');
    t.equal((seen[0].event.attachment as { messages: unknown[] }).messages.length, 2, 'now two messages');
    t.ok(sent.body.id, 'sent');
  });

  t.test('attachment events: none for a message without links, or for a link to nothing', async (t) => {
    await call(hamlet, 'messages.send', { type: 'stream', to: 'general', topic: 't', content: 'no files here, /user_uploads/1/xx/none/x.txt' });
    t.same(seen, [], 'no events');
  });

  t.test('attachment remove: to the uploader, on delete', async (t) => {
    const res = await call(hamlet, 'attachments.remove', { attachment_id: attachmentId });
    t.equal(res.status, 200, 'deleted');
    t.same(seen[0].userIds, [hamlet.id], 'to the uploader');
    t.same(seen[0].event, { type: 'attachment', op: 'remove', attachment: { id: attachmentId }, upload_space_used: 0 }, 'the id and the new space used');
    t.doesNotThrow(() => checkEvent(seen[0].event), 'matches the reference schema');
  });
});
