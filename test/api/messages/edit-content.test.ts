import { createHash } from 'node:crypto';
import t from 'tap';
import { startWorld } from './edit-world.js';

t.test('PATCH /messages/{id}: content edits', async (t) => {
  const w = await startWorld(t);
  const ann = await w.user('Ann');
  const bob = await w.user('Bob');

  t.test('PATCH /messages/{id}: new content is rendered, stored and read back with its history', async (t) => {
    const id = await w.send(ann, 'general', 'plans', 'Hello');
    const res = await w.edit(ann, id, { content: 'Howdy **all**' });
    t.equal(res.status, 200, 'the edit succeeds');
    t.same(res.body.detached_uploads, [], 'no uploads were detached');
    const got = await w.get(bob, id);
    t.equal(got.body.raw_content, 'Howdy **all**', 'raw_content is the new markup');
    t.match(got.body.message.content, /Howdy/, 'the content is the new rendering');
    t.type(got.body.message.last_edit_timestamp, 'number', 'last_edit_timestamp is set');
    t.notOk('last_moved_timestamp' in got.body.message, 'a content edit is not a move');
    t.equal(got.body.message.edit_history.length, 1, 'one edit_history entry');
    t.match(got.body.message.edit_history[0], { user_id: ann.id, prev_content: 'Hello', prev_rendered_content: '<p>Hello</p>' }, 'with the previous content');
    t.notOk('prev_topic' in got.body.message.edit_history[0], 'and no topic fields');
  });

  t.test('PATCH /messages/{id}: update_message goes to the recipients in the reference shape', async (t) => {
    const id = await w.send(ann, 'general', 'plans', 'first');
    await w.edit(ann, id, { content: 'second' });
    const updates = w.events.filter((e) => e.event.type === 'update_message');
    t.ok(updates.length >= 1, 'update_message was emitted');
    const all = updates.flatMap((e) => e.userIds).sort((a, b) => a - b);
    t.same(all, w.ids(w.owner, ann, bob), 'to every subscriber of the channel');
    t.match(updates[0].event, {
      user_id: ann.id,
      message_id: id,
      message_ids: [id],
      orig_content: 'first',
      content: 'second',
      rendered_content: '<p>second</p>',
      is_me_message: false,
      stream_id: w.realm.streamByName('general')!.id,
      stream_name: 'general',
      rendering_only: false,
    }, 'with the reference fields');
    t.notOk('propagate_mode' in updates[0].event, 'no move fields for a content edit');
    for (const user of [ann, bob]) {
      const mine = updates.find((e) => e.userIds.includes(user.id))!;
      const got = await w.get(user, id);
      t.same(mine.event.flags, got.body.message.flags, `${user.fullName}'s event carries their own flags`);
    }
  });

  t.test('PATCH /messages/{id}: a mention added by an edit sets the mentioned flag', async (t) => {
    const id = await w.send(ann, 'general', 'plans', 'no mention yet');
    await w.edit(ann, id, { content: 'now @**Bob** is mentioned' });
    const bobEvent = w.events.find((e) => e.event.type === 'update_message' && e.userIds.includes(bob.id))!;
    t.ok((bobEvent.event.flags as string[]).includes('mentioned'), 'the event carries the new flag');
    const got = await w.get(bob, id);
    t.ok(got.body.message.flags.includes('mentioned'), 'and Bob reads it back');
    await w.edit(ann, id, { content: 'mention removed' });
    const again = await w.get(bob, id);
    t.notOk(again.body.message.flags.includes('mentioned'), 'removing the mention clears the flag');
  });

  t.test('PATCH /messages/{id}: prev_content_sha256 guards against edit conflicts', async (t) => {
    const id = await w.send(ann, 'general', 'plans', 'original text');
    const good = createHash('sha256').update('original text').digest('hex');
    const stale = createHash('sha256').update('something else').digest('hex');
    const bad = await w.edit(ann, id, { content: 'mine', prev_content_sha256: stale });
    t.equal(bad.status, 400, 'a mismatched hash is refused');
    t.equal(bad.body.code, 'EXPECTATION_MISMATCH', 'with the reference code');
    t.equal(w.stored(id)!.content, 'original text', 'and nothing changes');
    const ok = await w.edit(ann, id, { content: 'mine', prev_content_sha256: good });
    t.equal(ok.status, 200, 'the matching hash is accepted');
  });

  t.test('PATCH /messages/{id}: empty content becomes (deleted); NUL bytes are refused', async (t) => {
    const id = await w.send(ann, 'general', 'plans', 'to blank');
    await w.edit(ann, id, { content: '   ' });
    t.equal(w.stored(id)!.content, '(deleted)', 'blank content is stored as (deleted)');
    const nul = await w.edit(ann, id, { content: 'a\u0000b' });
    t.equal(nul.body.msg, 'Message must not contain null bytes', 'NUL bytes are refused');
  });

  t.test('PATCH /messages/{id}: a direct message is edited for its participants only', async (t) => {
    const id = await w.dm(ann, [bob], 'psst');
    await w.edit(ann, id, { content: 'psst, edited' });
    const updates = w.events.filter((e) => e.event.type === 'update_message');
    t.same(updates.flatMap((e) => e.userIds).sort((a, b) => a - b), w.ids(ann, bob), 'to the two participants');
    t.notOk('stream_id' in updates[0].event, 'with no channel fields');
    const byBob = await w.edit(bob, id, { content: 'hijack' });
    t.equal(byBob.body.msg, "You don't have permission to edit this message", 'the other participant may not edit it');
  });
});
