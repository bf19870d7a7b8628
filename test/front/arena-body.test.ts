import { request as httpRequest } from 'node:http';
import t from 'tap';
import { ARENA_MAX_RUN, ARENA_SLOT_BYTES, ARENA_SLOTS, BodyArena } from '../../src/lib/body-arena.js';
import { createUser, startTestServer, type TestServer } from '../helpers/server.js';

/**
 * A big GET /messages page travels from the shard to the socket through the shard's arena
 * (lib/body-arena.ts), where a smaller answer, and the same request through Koa (with a body),
 * travel as strings. The bytes must be the same whichever way, for every viewer (the arena's
 * slots are reused: one viewer's page must never show in another's), and every slot must be
 * freed once its response has closed, also when the client hangs up.
 */
interface Raw {
  status: number;
  length: string | undefined;
  type: string | undefined;
  bytes: Buffer;
}

type Who = { email: string; apiKey: string };

function get(ts: TestServer, who: Who, params: Record<string, string>, koa = false): Promise<Raw> {
  const headers: Record<string, string> = { host: ts.server.config.externalHost, authorization: `Basic ${Buffer.from(`${who.email}:${who.apiKey}`).toString('base64')}` };
  const body = koa ? Buffer.from('x') : undefined;
  if (body) {
    headers['content-type'] = 'text/plain';
    headers['content-length'] = String(body.length);
  }
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: ts.port, method: 'GET', path: `/api/v1/messages?${new URLSearchParams(params)}`, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, length: res.headers['content-length'], type: res.headers['content-type'], bytes: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** A request whose client goes away as soon as the answer starts, or before it. */
function hangUp(ts: TestServer, who: Who, params: Record<string, string>, early: boolean): Promise<void> {
  const headers = { host: ts.server.config.externalHost, authorization: `Basic ${Buffer.from(`${who.email}:${who.apiKey}`).toString('base64')}` };
  return new Promise((resolve) => {
    const req = httpRequest({ host: '127.0.0.1', port: ts.port, method: 'GET', path: `/api/v1/messages?${new URLSearchParams(params)}`, headers, agent: false }, (res) => {
      res.destroy();
      resolve();
    });
    req.on('error', () => resolve());
    req.on('close', () => resolve());
    req.end();
    if (early) setImmediate(() => req.destroy());
  });
}

async function until(what: string, check: () => boolean, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

t.test('GET /messages: a page from the arena is the string path\'s, byte for byte, for every viewer', async (t) => {
  const ts = await startTestServer(t);
  const bob = await createUser(ts, 'bob@example.com', 'Bob Ünïcödé');
  const cat = await createUser(ts, 'cat@example.com', 'Cat');
  const ids: number[] = [];
  for (let i = 0; i < 40; i++) {
    const content = `message ${i}: **markup**, ünïcödé 🐙 and a long line ${'lorem ipsum dolor sit amet, '.repeat(12)}${i % 7 === 0 ? ' @**Bob Ünïcödé**' : ''}`;
    const sent = await ts.request('POST', '/messages', { params: { type: 'stream', to: 'general', topic: 'arena', content } });
    t.equal(sent.status, 200, `message ${i} is sent`);
    ids.push(sent.body.id);
  }
  // Flags that differ by viewer, an edited message, a reaction.
  t.equal((await ts.request('POST', '/messages/flags', { params: { messages: JSON.stringify(ids.slice(0, 10)), op: 'add', flag: 'starred' } })).status, 200, 'the owner stars ten');
  t.equal((await ts.as(bob)('POST', '/messages/flags', { params: { messages: JSON.stringify(ids.slice(5, 25)), op: 'add', flag: 'read' } })).status, 200, 'Bob reads twenty');
  t.equal((await ts.as(bob)('POST', '/messages/flags', { params: { messages: JSON.stringify(ids.slice(30, 33)), op: 'add', flag: 'starred' } })).status, 200, 'Bob stars three');
  t.equal((await ts.request('PATCH', `/messages/${ids[3]}`, { params: { content: 'edited: ✓ **done**' } })).status, 200, 'a message is edited');
  t.equal((await ts.as(cat)('POST', `/messages/${ids[4]}/reactions`, { params: { emoji_name: 'octopus' } })).status, 200, 'a reaction');
  const channel = (await ts.request('GET', '/get_stream_id', { params: { stream: 'general' } })).body.stream_id as number;
  const topic = JSON.stringify([{ operator: 'channel', operand: channel }, { operator: 'topic', operand: 'arena' }]);
  const pages: Record<string, Record<string, string>> = {
    topic: { anchor: 'newest', num_before: '40', num_after: '0', narrow: topic },
    raw: { anchor: 'newest', num_before: '30', num_after: '0', narrow: topic, apply_markdown: 'false', client_gravatar: 'false' },
    oldest: { anchor: 'oldest', num_before: '0', num_after: '35' },
    small: { anchor: 'newest', num_before: '2', num_after: '0', narrow: topic },
  };
  const viewers: [string, Who][] = [['the owner', ts.owner], ['Bob', bob], ['Cat', cat]];

  // The reference for each viewer and page: through Koa, which posts and writes the body as a string.
  const koa = new Map<string, Raw>();
  for (const [who, creds] of viewers) for (const [name, params] of Object.entries(pages)) koa.set(`${who} ${name}`, await get(ts, creds, params, true));
  const starredBy = (raw: Raw) => (JSON.parse(raw.bytes.toString('utf8')).messages as { id: number; flags: string[] }[]).filter((m) => m.flags.includes('starred')).map((m) => m.id);
  t.same(starredBy(koa.get('the owner topic')!), ids.slice(0, 10), "the owner's page shows the owner's stars");
  t.same(starredBy(koa.get('Bob topic')!), ids.slice(30, 33), "Bob's page shows Bob's stars only");
  t.same(starredBy(koa.get('Cat topic')!), [], "Cat's page shows no one's stars");
  t.ok(koa.get('the owner topic')!.bytes.length > 8 * 1024 * 3, 'a big page');

  const viewedBefore = BodyArena.viewed;
  for (const [who, creds] of viewers) {
    for (const [name, params] of Object.entries(pages)) {
      const fast = await get(ts, creds, params);
      const ref = koa.get(`${who} ${name}`)!;
      t.equal(fast.status, 200, `${who}, ${name}: answered`);
      t.ok(fast.bytes.equals(ref.bytes), `${who}, ${name}: the same bytes as through Koa`);
      t.equal(fast.length, ref.length, `${who}, ${name}: the same Content-Length`);
      t.equal(fast.type, ref.type, `${who}, ${name}: the same Content-Type`);
    }
  }
  t.equal(BodyArena.viewed - viewedBefore, viewers.length * 3, 'the big pages came through the arena, the small ones did not');

  // Many at once, more than the arena has slots: the slots are reused (or the string path
  // taken when all are in use) and every answer is still its viewer's own.
  const asked = Array.from({ length: ARENA_SLOTS + 36 }, (_, i) => {
    const [who, creds] = viewers[i % viewers.length];
    const name = ['topic', 'raw', 'oldest'][i % 3];
    return { key: `${who} ${name}`, done: get(ts, creds, pages[name]) };
  });
  let same = 0;
  for (const { key, done } of asked) if ((await done).bytes.equals(koa.get(key)!.bytes)) same++;
  t.equal(same, asked.length, `all ${asked.length} concurrent pages are their viewer's own, byte for byte`);

  // Clients that go away: their slots are freed too.
  await Promise.all(Array.from({ length: 12 }, (_, i) => hangUp(ts, viewers[i % 3][1], pages.topic, i % 2 === 0)));
  await until('every slot to be free', () => BodyArena.taken() === 0);
  t.equal(BodyArena.taken(), 0, 'no slot stays taken once the responses have closed');
  const after = await get(ts, bob, pages.topic);
  t.ok(after.bytes.equals(koa.get('Bob topic')!.bytes), 'and the next page is still right');
  await until('its slot to be free', () => BodyArena.taken() === 0);
});

t.test('BodyArena: slots taken, encoded, given up and freed', async (t) => {
  const arena = new BodyArena(BodyArena.allocate());
  const text = `{"a":"ünïcödé 🐙 ✓","b":"${'x'.repeat(1000)}"}`;
  const first = arena.put(text)!;
  t.equal(first.slot, 0, 'the lowest free slot');
  t.ok(arena.view(first).equals(Buffer.from(text, 'utf8')), 'the bytes are the UTF-8 of the text');
  const all = [first];
  for (let i = 1; i < ARENA_SLOTS; i++) all.push(arena.put(`${i}`)!);
  t.same(all.map((b) => b.slot), Array.from({ length: ARENA_SLOTS }, (_, i) => i), 'each put takes the next slot');
  t.equal(arena.put('one more'), null, 'none left: the caller sends a string');
  arena.free(7);
  const again = arena.put('seven')!;
  t.equal(again.slot, 7, 'a freed slot is taken again');
  t.equal(arena.view(again).toString('utf8'), 'seven', 'with the new body');
  for (let i = 0; i < ARENA_SLOTS; i++) arena.free(i);
  t.equal(BodyArena.taken(), 0, 'all freed');
  // A body bigger than a slot takes a run of neighbouring slots, freed together.
  const big = `${'x'.repeat(ARENA_SLOT_BYTES)}ü`;
  const run = arena.put(big)!;
  t.equal(run.slot, 0, 'more units than a slot has bytes: a run from the lowest slot');
  t.ok(arena.view(run).equals(Buffer.from(big, 'utf8')), 'its bytes are the UTF-8 of the text, across the slots');
  t.equal(BodyArena.taken(), 2, 'the run holds two slots');
  t.equal(arena.put('next')!.slot, 2, 'the next body goes after the run');
  arena.free(0);
  t.equal(arena.put('small')!.slot, 0, 'freeing the run frees its first slot');
  t.equal(arena.put('smaller')!.slot, 1, 'and the rest of it');
  const past = arena.put('y'.repeat(ARENA_SLOT_BYTES * 2))!;
  t.equal(past.slot, 3, 'a run that does not fit below a taken slot is looked for past it');
  for (const slot of [0, 1, 2, 3]) arena.free(slot);
  t.equal(arena.put('z'.repeat(ARENA_SLOT_BYTES * ARENA_MAX_RUN + 1)), null, 'more than ARENA_MAX_RUN slots: the caller sends a string');
  t.equal(arena.put('🐙'.repeat(ARENA_SLOT_BYTES / 3)), null, 'a body whose UTF-8 overflows the slot');
  const fits = arena.put('é'.repeat(ARENA_SLOT_BYTES / 2))!;
  t.equal(fits.slot, 0, 'the slot given up is free again');
  t.equal(fits.length, ARENA_SLOT_BYTES, 'a body that fills its slot exactly');
  arena.free(0);
  // A body given as pieces (a /register's, stringifyPieces) is encoded piece after piece.
  const pieces = ['{"a":', '"ünïcödé 🐙"', ',"b":', `"${'p'.repeat(ARENA_SLOT_BYTES)}"`, '}'];
  const inPieces = arena.put(pieces)!;
  t.equal(inPieces.slot, 0, 'pieces take a run as a string does');
  t.ok(arena.view(inPieces).equals(Buffer.from(pieces.join(''), 'utf8')), 'their bytes are the UTF-8 of the joined text');
  arena.free(0);
  t.equal(arena.put(['{', '🐙'.repeat(ARENA_SLOT_BYTES / 3), '}']), null, 'pieces whose UTF-8 overflows the run: a string');
  t.equal(BodyArena.taken(), 0, 'every slot is free at the end');
});
