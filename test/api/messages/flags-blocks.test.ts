import t from 'tap';
import { FLIP_BLOCK } from '../../../src/store/flips.js';
import { startWorld, streamId, subscribe, type Person } from '../streams/world.js';

/**
 * Read flips are kept as per-user sets of ids in blocks of FLIP_BLOCK ids (store/flips.ts). A
 * channel's history long enough to span several blocks, with messages marked unread below the
 * read mark on both sides of block boundaries, read through every reader of flips over HTTP:
 * message flags, `is:unread` both ways and with limits, /register's unread_msgs, marking read
 * by narrow, deletion and "mark all as read"; and one user's flips are theirs alone.
 */
t.test('read flips across blocks', async (t) => {
  const w = await startWorld(t);
  const { hamlet, othello, admin } = w.root;
  const asHamlet = w.as(hamlet);
  await subscribe(w.as(admin), ['general']);
  const general = await streamId(asHamlet, 'general');
  const send = async (who: Person, topic: string, content: string) => (await w.as(who)('POST', '/messages', { params: { type: 'stream', to: 'general', topic, content } })).body.id as number;

  // Enough messages to cross at least one block boundary, sent a few at a time.
  const ids: number[] = [];
  for (let i = 0; i < FLIP_BLOCK + 100; i += 20) {
    const batch = await Promise.all(Array.from({ length: 20 }, (_, j) => send(othello, i + j < 40 ? 'early' : 'flood', `m${i + j}`)));
    ids.push(...batch);
  }
  ids.sort((a, b) => a - b);
  const boundary = ids.findIndex((id, i) => i > 0 && Math.floor(id / FLIP_BLOCK) !== Math.floor(ids[i - 1] / FLIP_BLOCK));
  t.ok(boundary > 0, 'the history spans a block boundary');
  // Around the boundary, the first and last messages, and a run in the first block.
  const picked = [ids[0], ids[1], ids[5], ids[6], ids[7], ids[boundary - 1], ids[boundary], ids[boundary + 1], ids[ids.length - 1]];

  const unread = async (who: Person, params: Record<string, unknown> = {}) => {
    const res = await w.as(who)('GET', '/messages', { params: { anchor: 'oldest', num_before: 0, num_after: 5000, narrow: JSON.stringify([{ operator: 'is', operand: 'unread' }]), ...params } });
    t.equal(res.status, 200, 'GET /messages is:unread');
    return (res.body.messages as { id: number }[]).map((m) => m.id);
  };
  const flagsOf = async (who: Person, id: number) => {
    const res = await w.as(who)('GET', `/messages/${id}`);
    return res.body.message.flags as string[];
  };
  const registered = async (who: Person) => {
    const res = await w.as(who)('POST', '/register', { params: { fetch_event_types: JSON.stringify(['message', 'update_message_flags']) } });
    t.equal(res.status, 200, 'POST /register');
    const streams = res.body.unread_msgs.streams as { stream_id: number; unread_message_ids: number[] }[];
    return { count: res.body.unread_msgs.count as number, ids: streams.filter((s) => s.stream_id === general).flatMap((s) => s.unread_message_ids).sort((a, b) => a - b) };
  };

  t.test('marking read moves the mark and leaves nothing unread', async (t) => {
    const res = await asHamlet('POST', '/mark_all_as_read');
    t.equal(res.status, 200, 'mark_all_as_read');
    t.same(await unread(hamlet), [], 'nothing unread');
  });

  t.test('messages marked unread below the mark, on both sides of a boundary', async (t) => {
    const res = await asHamlet('POST', '/messages/flags', { params: { messages: JSON.stringify(picked), op: 'remove', flag: 'read' } });
    t.equal(res.status, 200, 'marked unread');
    t.same(res.body.messages, picked, 'every one changed');
    t.same(await unread(hamlet), picked, 'is:unread, oldest first, finds exactly them');
    const newest = await unread(hamlet, { anchor: 'newest', num_before: 3, num_after: 0 });
    t.same(newest, picked.slice(-3), 'and newest first, three of them');
    const between = await unread(hamlet, { anchor: ids[boundary - 1], num_before: 0, num_after: 2, include_anchor: false });
    t.same(between, [ids[boundary], ids[boundary + 1]], 'and from an anchor right before the boundary');
    t.notOk((await flagsOf(hamlet, ids[boundary])).includes('read'), 'the message after the boundary shows unread');
    t.ok((await flagsOf(hamlet, ids[boundary + 2])).includes('read'), 'its neighbour shows read');
    t.ok((await flagsOf(hamlet, ids[2])).includes('read'), 'and so does one between two flips of the first block');
    const reg = await registered(hamlet);
    t.same(reg.ids, picked, "/register's unread_msgs lists them");
    t.equal(reg.count, picked.length, 'and counts them');
  });

  t.test("one user's flips are not another's", async (t) => {
    const res = await w.as(admin)('POST', '/mark_all_as_read');
    t.equal(res.status, 200, 'the admin marks all read');
    t.same(await unread(admin), [], "the admin's messages are all read");
    t.ok((await flagsOf(admin, ids[boundary])).includes('read'), 'including those Hamlet marked unread');
    t.same(await unread(hamlet), picked, "and Hamlet's flips are still his");
  });

  t.test('a deleted message takes its flip with it', async (t) => {
    const gone = ids[boundary];
    const res = await w.as(w.root.owner)('DELETE', `/messages/${gone}`);
    t.equal(res.status, 200, 'deleted');
    const left = picked.filter((id) => id !== gone);
    t.same(await unread(hamlet), left, 'is:unread no longer finds it');
    t.same((await registered(hamlet)).ids, left, 'nor does /register');
  });

  t.test('marking read by narrow drops the flips of that narrow', async (t) => {
    const res = await asHamlet('POST', '/messages/flags/narrow', {
      params: { anchor: 'oldest', num_before: 0, num_after: 5000, narrow: JSON.stringify([{ operator: 'channel', operand: general }, { operator: 'topic', operand: 'early' }]), op: 'add', flag: 'read' },
    });
    t.equal(res.status, 200, 'flags/narrow');
    const early = picked.filter((id) => ids.indexOf(id) < 40);
    t.same(res.body.updated_count, early.length, 'updated the unread ones of the topic');
    t.same(await unread(hamlet), picked.filter((id) => id !== ids[boundary] && !early.includes(id)), 'the rest stay unread');
    const again = await asHamlet('POST', '/messages/flags/narrow', {
      params: { anchor: 'oldest', num_before: 0, num_after: 5000, narrow: JSON.stringify([{ operator: 'channel', operand: general }]), op: 'add', flag: 'read' },
    });
    t.equal(again.body.updated_count, picked.length - early.length - 1, 'the whole channel: only what was still unread');
    t.same(await unread(hamlet), [], 'nothing unread');
    const twice = await asHamlet('POST', '/messages/flags/narrow', {
      params: { anchor: 'oldest', num_before: 0, num_after: 5000, narrow: JSON.stringify([{ operator: 'channel', operand: general }]), op: 'add', flag: 'read' },
    });
    t.equal(twice.body.updated_count, 0, 'and again: nothing to change');
  });

  t.test('marking unread by narrow, then all read', async (t) => {
    const res = await asHamlet('POST', '/messages/flags/narrow', {
      params: { anchor: 'oldest', num_before: 0, num_after: 5000, narrow: JSON.stringify([{ operator: 'channel', operand: general }]), op: 'remove', flag: 'read' },
    });
    t.equal(res.status, 200, 'the whole channel marked unread');
    const all = await unread(hamlet);
    t.equal(all.length, ids.length - 1, 'every message left of the history is unread');
    t.equal((await registered(hamlet)).count, ids.length - 1, '/register counts them all');
    const read = await asHamlet('POST', '/mark_all_as_read');
    t.equal(read.status, 200, 'mark_all_as_read');
    t.same(await unread(hamlet), [], 'drops every flip');
    t.same((await registered(hamlet)).ids, [], 'and /register agrees');
    const later = await send(othello, 'flood', 'after');
    t.same(await unread(hamlet), [later], 'a new message arrives unread');
  });

  t.test("a topic's deletion takes every holder's flips of its messages", async (t) => {
    const before = await unread(admin);
    const early = ids.slice(0, 40).filter((id) => id !== ids[boundary]);
    const kept = ids[100];
    const mark = async (who: Person, messages: number[]) => {
      const res = await w.as(who)('POST', '/messages/flags', { params: { messages: JSON.stringify(messages), op: 'remove', flag: 'read' } });
      t.equal(res.status, 200, 'marked unread');
    };
    await mark(hamlet, [...early.slice(0, 10), kept]);
    await mark(admin, [early[2], early[3], kept]);
    const hamletBefore = await unread(hamlet);
    let res;
    do res = await w.as(w.root.owner)('POST', `/streams/${general}/delete_topic`, { params: { topic_name: 'early' } });
    while (res.status === 200 && res.body.complete === false);
    t.equal(res.status, 200, 'delete_topic');
    t.same(await unread(hamlet), hamletBefore.filter((id) => !early.includes(id)), "Hamlet's flips of the topic are gone, the rest stay");
    t.same(await unread(admin), [...new Set([...before, kept])].sort((a, b) => a - b), "and so are the admin's");
    t.same((await registered(hamlet)).ids, hamletBefore.filter((id) => !early.includes(id)), '/register agrees');
  });
});
