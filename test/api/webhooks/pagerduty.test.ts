import t from 'tap';
import { startTestServer } from '../../helpers/server.js';
import { runCaseTable } from './cases.js';

t.test('POST /external/pagerduty: the reference\'s test cases', async (t) => {
  const ts = await startTestServer(t);
  await runCaseTable(t, ts, 'pagerduty');
});
