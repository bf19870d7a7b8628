import Koa from 'koa';

/**
 * The baseline: a bare Koa app answering every request as the cheapest Zulip endpoint would,
 * on the same machine and in the same run as the server under test. Scenarios are reported as
 * ratios to its throughput, because this machine's 2 cores are shared with the load generator
 * and absolute figures drift from run to run.
 */
const app = new Koa();
app.use((ctx) => {
  ctx.type = 'application/json';
  ctx.body = '{"result":"success","msg":""}';
});
const server = app.listen(0, '127.0.0.1', () => {
  const address = server.address();
  console.log(`baseline listening on ${typeof address === 'object' && address ? address.port : 0}`);
});
process.on('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
