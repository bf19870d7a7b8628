import { BRANCHES_OPTION, field, optional, registerIntegration, unsupportedEvent, type WebhookMessage, type WebhookRequest } from './registry.js';
import { branchNotifiable, prOrIssueMessage, pushCommitsMessage, topicWithBranch, topicWithPrOrIssue } from './git.js';
import { truthy } from './py.js';

/**
 * Azure DevOps (zerver/webhooks/azuredevops/view.py): the payload's eventType names the event;
 * code pushes and pull requests created, updated and merged. As in the reference, its messages
 * carry no event type, so only_events / exclude_events do not apply to them.
 */
type P = Record<string, any>;

const res = (p: P) => field<P>(p, 'resource');
const repoName = (p: P) => field<string>(p, 'resource', 'repository', 'name');
const repoUrl = (p: P) => field<string>(p, 'resource', 'repository', 'remoteUrl');
const pushBranch = (p: P) => field<string>(p, 'resource', 'refUpdates', 0, 'name').replace('refs/heads/', '');
const branchOf = (p: P, key: string) => field<string>(res(p), key).replace('refs/heads/', '');

function push(p: P): string {
  const update = field<P>(p, 'resource', 'refUpdates', 0);
  const compareUrl = `${repoUrl(p)}/branchCompare?baseVersion=GC${field(update, 'oldObjectId')}&targetVersion=GC${field(update, 'newObjectId')}&_a=files`;
  const commits = (optional<P[]>(res(p), 'commits') ?? []).map((c) => ({
    name: field<string>(c, 'author', 'name'),
    sha: field<string>(c, 'commitId'),
    url: `${repoUrl(p)}/commit/${field(c, 'commitId')}`,
    message: field<string>(c, 'comment'),
  }));
  return pushCommitsMessage({ user: field(p, 'resource', 'pushedBy', 'displayName'), compareUrl, branch: pushBranch(p), commits });
}

const pullRequest = (p: P) => ({
  user: field<string>(p, 'resource', 'createdBy', 'displayName'),
  url: field<string>(p, 'resource', '_links', 'web', 'href'),
  number: field<number>(res(p), 'pullRequestId'),
  title: field<string>(res(p), 'title'),
});

const BODIES: Record<string, (p: P) => string> = {
  'git.push': push,
  'git.pullrequest.created': (p) =>
    prOrIssueMessage({
      ...pullRequest(p),
      action: 'created',
      targetBranch: branchOf(p, 'sourceRefName'),
      baseBranch: branchOf(p, 'targetRefName'),
      message: truthy(res(p).description) ? field(res(p), 'description') : null,
    }),
  'git.pullrequest.merged': (p) => prOrIssueMessage({ ...pullRequest(p), action: 'merged', targetBranch: branchOf(p, 'sourceRefName'), baseBranch: branchOf(p, 'targetRefName') }),
  'git.pullrequest.updated': (p) => prOrIssueMessage({ ...pullRequest(p), action: 'updated', message: field(p, 'detailedMessage', 'markdown') }),
};

/** get_event_name: null for a push to a branch not asked for, or a merge that did not happen. */
function eventName(p: P, branches: string | undefined): string | null {
  const event = field<string>(p, 'eventType');
  if (event === 'git.push' && branches !== undefined && !branchNotifiable(pushBranch(p), branches)) return null;
  // Azure DevOps reports merge attempts too (a conflict after creation, a clean update).
  if (event === 'git.pullrequest.merged' && (field(res(p), 'status') !== 'completed' || field(res(p), 'mergeStatus') !== 'succeeded')) return null;
  if (Object.hasOwn(BODIES, event)) return event;
  throw unsupportedEvent('AzureDevOps', event);
}

function handle(req: WebhookRequest): WebhookMessage[] {
  const p = req.payload as P;
  const event = eventName(p, req.params.branches);
  if (event === null) return [];
  const topic = event === 'git.push' ? topicWithBranch(repoName(p), pushBranch(p)) : topicWithPrOrIssue(repoName(p), 'PR', field(res(p), 'pullRequestId'), field(res(p), 'title'));
  return [{ topic, body: BODIES[event](p) }];
}

registerIntegration({ name: 'azuredevops', displayName: 'AzureDevOps', webhookName: 'AzureDevOps', allEventTypes: Object.keys(BODIES), params: ['branches'], urlOptions: [BRANCHES_OPTION], handle });
