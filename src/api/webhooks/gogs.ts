import { BRANCHES_OPTION, eventHeader, field, registerIntegration, unsupportedEvent, type WebhookMessage, type WebhookRequest } from './registry.js';
import { branchNotifiable, createBranchMessage, issueMessage, prOrIssueMessage, pushCommitsMessage, releaseMessage, topicWithBranch, topicWithPrOrIssue, topicWithRelease } from './git.js';
import { truthy } from './py.js';

/**
 * Gogs (zerver/webhooks/gogs/view.py), and the frame Gitea shares with it: the event is named in
 * X-Gogs-Event (X-Gitea-Event); pushes, new branches, pull requests, issues, issue comments and
 * releases. The two differ only in their pull request payloads.
 */
export type P = Record<string, any>;
export type PullRequestBody = (p: P, includeTitle: boolean) => string;

const issueUrl = (p: P, n: number) => `${field(p, 'repository', 'html_url')}/issues/${n}`;

function push(p: P): string {
  const commits = field<P[]>(p, 'commits').map((c) => ({
    name: field<string>(c, 'author', 'username') || field<string>(c, 'author', 'name').trim().split(/\s+/)[0],
    sha: field<string>(c, 'id'),
    url: field<string>(c, 'url'),
    message: field<string>(c, 'message'),
  }));
  return pushCommitsMessage({ user: field(p, 'sender', 'username'), compareUrl: field(p, 'compare_url'), branch: field<string>(p, 'ref').replace('refs/heads/', ''), commits });
}

function issues(p: P, includeTitle: boolean): string {
  const n = field<number>(p, 'issue', 'number');
  const assignee = truthy(p.issue.assignee) ? field<string>(p, 'issue', 'assignee', 'login') : null;
  const action = field<string>(p, 'action');
  return issueMessage({
    user: field(p, 'sender', 'login'),
    action,
    url: issueUrl(p, n),
    number: n,
    message: field(p, 'issue', 'body'),
    assignee,
    title: includeTitle ? field(p, 'issue', 'title') : null,
    assigneeUpdated: action === 'assigned' ? assignee : null,
  });
}

function issueComment(p: P, includeTitle: boolean): string {
  const action = field<string>(p, 'action');
  const n = field<number>(p, 'issue', 'number');
  return issueMessage({
    user: field(p, 'sender', 'login'),
    action: `${action === 'created' ? '[commented]' : `${action} a [comment]`}(${field(p, 'comment', 'html_url')}) on`,
    url: issueUrl(p, n),
    number: n,
    message: field(p, 'comment', 'body'),
    title: includeTitle ? field(p, 'issue', 'title') : null,
  });
}

/** Gogs' pull requests: the author acts, unless the request was merged. */
function gogsPullRequest(p: P, includeTitle: boolean): string {
  const pr = field<P>(p, 'pull_request');
  const merged = field<boolean>(pr, 'merged');
  const action = merged ? 'merged' : field<string>(p, 'action');
  return prOrIssueMessage({
    user: merged ? field(pr, 'merged_by', 'username') : field(pr, 'user', 'username'),
    action,
    url: field(pr, 'html_url'),
    number: field(pr, 'number'),
    targetBranch: action !== 'edited' ? field(pr, 'head_branch') : null,
    baseBranch: action !== 'edited' ? field(pr, 'base_branch') : null,
    title: includeTitle ? field(pr, 'title') : null,
    assigneeUpdated: truthy(p.action) && truthy(pr.assignee) ? field(pr, 'assignee', 'login') : null,
  });
}

/** gogs_webhook_main */
export function gogsFrame(webhookName: string, header: string, pullRequest: PullRequestBody) {
  return (req: WebhookRequest): WebhookMessage[] => {
    const p = req.payload as P;
    const repo = field<string>(p, 'repository', 'name');
    const event = eventHeader(req, header);
    const includeTitle = req.userSpecifiedTopic;
    let topic: string;
    let body: string;
    if (event === 'push') {
      const branch = field<string>(p, 'ref').replace('refs/heads/', '');
      if (!branchNotifiable(branch, req.params.branches)) return [];
      body = push(p);
      topic = topicWithBranch(repo, branch);
    } else if (event === 'create') {
      const ref = field<string>(p, 'ref');
      body = createBranchMessage(field(p, 'sender', 'username'), `${field(p, 'repository', 'html_url')}/src/${ref}`, ref);
      topic = topicWithBranch(repo, ref);
    } else if (event === 'pull_request') {
      body = pullRequest(p, includeTitle);
      topic = topicWithPrOrIssue(repo, 'PR', field(p, 'pull_request', 'id'), field(p, 'pull_request', 'title'));
    } else if (event === 'issues' || event === 'issue_comment') {
      body = event === 'issues' ? issues(p, includeTitle) : issueComment(p, includeTitle);
      topic = topicWithPrOrIssue(repo, 'issue', field(p, 'issue', 'number'), field(p, 'issue', 'title'));
    } else if (event === 'release') {
      const r = field<P>(p, 'release');
      body = releaseMessage(field(r, 'author', 'username'), field(p, 'action'), field(r, 'tag_name'), field(r, 'name'), field(p, 'repository', 'html_url'));
      topic = topicWithRelease(repo, field(r, 'tag_name'), field(r, 'name'));
    } else {
      throw unsupportedEvent(webhookName, event);
    }
    return [{ topic, body, eventType: event }];
  };
}

export const ALL_EVENT_TYPES = ['issue_comment', 'issues', 'create', 'pull_request', 'push', 'release'];

registerIntegration({ name: 'gogs', displayName: 'Gogs', webhookName: 'Gogs', allEventTypes: ALL_EVENT_TYPES, params: ['branches'], urlOptions: [BRANCHES_OPTION], handle: gogsFrame('Gogs', 'X-Gogs-Event', gogsPullRequest) });

