import t from 'tap';
import { createUser, startTestServer } from '../../helpers/server.js';
import { runCaseTable } from './cases.js';

t.test('POST /external/jira: the reference\'s test cases', async (t) => {
  const ts = await startTestServer(t);
  // The reference's test realm has Othello, whom Jira's fixtures assign issues to by address.
  await createUser(ts, 'othello@zulip.com', 'Othello, the Moor of Venice');
  await runCaseTable(t, ts, 'jira');
});
