import { BRANCHES_OPTION, field, registerIntegration } from './registry.js';
import { prOrIssueMessage } from './git.js';
import { gogsFrame, type P } from './gogs.js';
import { truthy } from './py.js';

/**
 * Gitea (zerver/webhooks/gitea/view.py): a fork of Gogs, posting the same events with
 * X-Gitea-Event. Its pull requests name their branches under head/base, and the user acting on
 * one is the sender (10.2 named the request's author; the reference fixed that in 11.3,
 * zulip/zulip#36184, and so does this).
 */
function pullRequest(p: P, includeTitle: boolean): string {
  const pr = field<P>(p, 'pull_request');
  const merged = field<boolean>(pr, 'merged');
  const action = merged ? 'merged' : field<string>(p, 'action');
  const assignee = truthy(pr.assignee) ? field<string>(pr, 'assignee', 'login') : null;
  return prOrIssueMessage({
    user: merged ? field(pr, 'merged_by', 'username') : field(p, 'sender', 'username'),
    action,
    url: field(pr, 'html_url'),
    number: field(pr, 'number'),
    targetBranch: action !== 'edited' && 'head' in pr ? field(pr, 'head', 'ref') : null,
    baseBranch: action !== 'edited' && 'base' in pr ? field(pr, 'base', 'ref') : null,
    title: includeTitle ? field(pr, 'title') : null,
    assignee,
    assigneeUpdated: action === 'assigned' ? assignee : null,
  });
}

registerIntegration({ name: 'gitea', displayName: 'Gitea', webhookName: 'Gitea', allEventTypes: null, params: ['branches'], urlOptions: [BRANCHES_OPTION], handle: gogsFrame('Gitea', 'X-Gitea-Event', pullRequest) });
