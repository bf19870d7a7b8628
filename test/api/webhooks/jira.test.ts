import t from 'tap';
import { createUser } from '../../helpers/server.js';
import { runIntegration } from './cases.js';

// The reference's test realm has Othello, whom Jira's fixtures assign issues to by address.
runIntegration(t, 'jira', { setup: async (h) => void (await createUser(h.ts, 'othello@zulip.com', 'Othello, the Moor of Venice')) });
