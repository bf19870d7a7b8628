import { Worker } from 'node:worker_threads';
import t from 'tap';
import { renderMap } from '../../src/cluster/proxy.js';
import { MessageIds } from '../../src/store/message-ids.js';

/**
 * Message ids in blocks (store/message-ids.ts, cluster/ids.ts): a cluster node hands out only the
 * ids of the blocks etcd gave it, from every shard thread at once, with no id outside them; and
 * the proxy's routing table as `stoa cluster proxy` writes it (cluster/proxy.ts).
 */
t.test('MessageIds: blocks', async (t) => {
  const single = new MessageIds();
  t.same([single.next(), single.next()], [1, 2], 'a single server counts without limit');

  const node = new MessageIds(MessageIds.buffer(0));
  t.throws(() => node.next(), /no message id left/, 'a node hands out nothing before its first block');
  node.install(1000, 1003);
  t.same([node.next(), node.next(), node.next()], [1001, 1002, 1003], 'then the ids of its block');
  t.throws(() => node.next(), /no message id left/, 'and nothing past it');
  t.equal(node.remaining(), 0, 'none remaining');
  t.throws(() => node.install(500, 600), /below id 1003/, 'a block below what was handed out is refused');
  node.install(5000, 6000);
  t.equal(node.next(), 5001, 'the next block starts above the gap');
  t.equal(node.remaining(), 999, 'and counts what is left');
});

t.test('MessageIds: threads taking ids while blocks are installed get unique ids inside the blocks', async (t) => {
  const buffer = MessageIds.buffer(0);
  const ids = new MessageIds(buffer);
  ids.install(0, 10_000);
  const blocks: [number, number][] = [[0, 10_000]];
  const url = new URL('../../src/store/message-ids.js', import.meta.url).href;
  const code = `
    const { workerData, parentPort } = require('node:worker_threads');
    import(workerData.url).then(({ MessageIds }) => {
      const ids = new MessageIds(workerData.buffer);
      const got = [];
      while (got.length < workerData.count) {
        try { got.push(ids.next()); } catch { /* between blocks: the main thread installs the next */ }
      }
      parentPort.postMessage(got);
    });`;
  const workers = [0, 1].map(() => new Worker(code, { eval: true, workerData: { url, buffer, count: 40_000 } }));
  const results = workers.map((w) => new Promise<number[]>((resolve, reject) => (w.once('message', resolve), w.once('error', reject))));
  let done = false;
  void Promise.all(results).then(() => (done = true));
  // The main thread keeps the blocks coming, as IdBlocks does, each above the last with a gap.
  while (!done) {
    if (ids.remaining() < 5_000) {
      const lo = blocks.at(-1)![1] + 1_000;
      ids.install(lo, lo + 10_000);
      blocks.push([lo, lo + 10_000]);
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
  const all = (await Promise.all(results)).flat();
  t.equal(new Set(all).size, all.length, `${all.length} ids, all different`);
  t.ok(all.every((id) => blocks.some(([lo, hi]) => id > lo && id <= hi)), `all inside the ${blocks.length} blocks handed out`);
  for (const [i, got] of (await Promise.all(results)).entries()) t.ok(got.every((id, k) => k === 0 || id > got[k - 1]), `thread ${i}: its ids increase`);
});

t.test('the proxy map: a host per organization, an upstream per node, a live node for the rest', async (t) => {
  const text = renderMap({
    nodes: new Map([
      ['n-1', { id: 'n-1', address: '10.0.0.1:9991', added: 0 }],
      ['n_2', { id: 'n_2', address: '10.0.0.2:9991', added: 0 }],
    ]),
    alive: new Map([['n_2', { id: 'n_2', address: '10.0.0.20:9991', externalHost: 'chat.example.com', pid: 1, started: 0 }]]),
    placements: [
      { id: 1, subdomain: '', name: 'Root', node: 'n-1', host: 'chat.example.com', state: 'active' },
      { id: 2, subdomain: 'acme', name: 'Acme', node: 'n_2', host: 'acme.chat.example.com:8443', state: 'active' },
      { id: 3, subdomain: 'ghost', name: 'Ghost', node: 'gone', host: 'ghost.chat.example.com', state: 'active' },
    ],
  });
  t.match(text, /upstream stoa_node_n_2d1 \{ server 10\.0\.0\.1:9991; keepalive 64; \}/, 'a node not running keeps its added address');
  t.match(text, /upstream stoa_node_n_5f2 \{ server 10\.0\.0\.20:9991; keepalive 64; \}/, 'a live node is reached where it says it listens');
  t.match(text, /default stoa_node_n_5f2;/, 'unknown hosts go to a live node');
  t.match(text, /\n    chat\.example\.com stoa_node_n_2d1;/, 'the root organization at the external host');
  t.match(text, /\n    acme\.chat\.example\.com stoa_node_n_5f2;/, 'an organization at its host, without the port ($host has none)');
  t.notMatch(text, /ghost/, 'a placement on a node the cluster does not know is left out');
  t.match(text, /map \$stoa_node \$stoa_node_backend \{\n    n-1 stoa_node_n_2d1;\n    n_2 stoa_node_n_5f2;\n\}/, 'node ids map to their upstreams for /_nodes/<id>/');
});
