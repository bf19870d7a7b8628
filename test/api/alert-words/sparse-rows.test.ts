import t from 'tap';
import { doSendMessage } from '../../../src/api/messages/send.js';
import { createInitialChannels } from '../../../src/api/streams/actions.js';
import { rowUserIds } from '../../../src/api/messages/edit-audience.js';
import { ROLE, startShard } from '../realm/harness.js';

/**
 * Alert words and muted senders keep a send's writes sparse: rows for the users concerned only,
 * however many subscribers the channel has (docs/ARCHITECTURE.md, "Per-user message state is
 * sparse").
 */
t.test('a send writes per-user rows only for the users concerned', async (t) => {
  const h = await startShard(t);
  await createInitialChannels(h.shard, h.realm, h.owner);
  const users = [];
  for (let i = 0; i < 120; i++) users.push(await h.user(ROLE.member));
  const [sender, alerted1, alerted2, quiet, muter1, muter2] = users;
  h.realm.people.setAlertWords(alerted1.id, ['deploy']);
  h.realm.people.setAlertWords(alerted2.id, ['Release notes']);
  h.realm.people.setAlertWords(quiet.id, ['never said']);
  h.realm.people.setMute(muter1.id, sender.id, 1);
  h.realm.people.setMute(muter2.id, sender.id, 1);
  const stream = h.realm.streamByName('general')!;
  t.ok(h.realm.subscriberIds(stream.id).size > 100, 'a channel of over a hundred subscribers');

  // Who holds a row for the message: a uflags row or a read flip (store/flips.ts).
  const rowsOf = (msgId: number) => rowUserIds(h.shard, h.realm, msgId).sort((a, b) => a - b);
  const send = (content: string) => doSendMessage(h.shard, h.realm, { sender, content, client: 'test', readBySender: true, stream, topic: 'ops' });

  const msg = await send('the deploy and the release notes');
  t.same(rowsOf(msg.id), [sender.id, alerted1.id, alerted2.id, muter1.id, muter2.id].sort((a, b) => a - b), 'the sender, the two users alerted and the two muters: nobody else');
  const plain = await send('nothing of note');
  t.same(rowsOf(plain.id), [sender.id, muter1.id, muter2.id].sort((a, b) => a - b), 'without an alert word, the sender and the muters');
  h.realm.people.setMute(muter1.id, sender.id, null);
  h.realm.people.setMute(muter2.id, sender.id, null);
  const unmuted = await send('still nothing');
  t.same(rowsOf(unmuted.id), [sender.id], 'with no mutes left, the sender alone');
});
