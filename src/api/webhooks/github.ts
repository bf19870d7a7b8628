import { field, optional, eventHeader, registerIntegration, unsupportedEvent, type WebhookMessage, type WebhookRequest } from './registry.js';
import { branchNotifiable, prOrIssueMessage, pushCommitsMessage, pushTagMessage, setupMessage, TOPIC_WITH_BRANCH, TOPIC_WITH_PR_OR_ISSUE, type CommitData } from './git.js';

/**
 * GitHub (zerver/webhooks/github/view.py): the event comes in the X-GitHub-Event header and is
 * refined by the payload's action. Covered: ping, push (commits and tags), pull_request,
 * issues, issue_comment, and the repository-level star/watch/fork/create/delete/public events;
 * the events the reference ignores are ignored; anything else is an unsupported event type.
 */
type P = Record<string, any>;

const NAME = 'GitHub';
const repoName = (p: P) => field<string>(p, 'repository', 'name');
const sender = (p: P) => field<string>(p, 'sender', 'login');

const IGNORED_EVENTS = new Set(['check_suite', 'label', 'meta', 'milestone', 'organization', 'project_card', 'push__merge_queue', 'repository_vulnerability_alert']);
const IGNORED_PULL_REQUEST_ACTIONS = new Set(['approved', 'converted_to_draft', 'labeled', 'review_request_removed', 'unlabeled']);

interface Ctx {
  p: P;
  includeTitle: boolean;
}

function openedOrUpdatedPr({ p, includeTitle }: Ctx): string {
  const pr = field<P>(p, 'pull_request');
  let action = field<string>(p, 'action');
  if (action === 'synchronize') action = 'updated';
  const changes = optional<P>(p, 'changes') ?? {};
  const branches = action === 'opened' || action === 'merged';
  return prOrIssueMessage({
    user: sender(p),
    action,
    url: field(pr, 'html_url'),
    number: field(pr, 'number'),
    targetBranch: branches ? field(pr, 'head', 'label') : null,
    baseBranch: branches ? field(pr, 'base', 'label') : null,
    message: 'body' in changes || action === 'opened' ? (optional<string>(pr, 'body') ?? null) : null,
    assignee: optional<string>(pr, 'assignee', 'login') ?? null,
    title: includeTitle ? field(pr, 'title') : null,
  });
}

function assignedPr({ p, includeTitle }: Ctx): string {
  const pr = field<P>(p, 'pull_request');
  return prOrIssueMessage({ user: sender(p), action: field(p, 'action'), url: field(pr, 'html_url'), number: field(pr, 'number'), title: includeTitle ? field(pr, 'title') : null, assigneeUpdated: optional(p, 'assignee', 'login') ?? null });
}

function closedPr({ p, includeTitle }: Ctx): string {
  const pr = field<P>(p, 'pull_request');
  const action = field<boolean>(pr, 'merged') ? 'merged' : 'closed without merge';
  return prOrIssueMessage({ user: sender(p), action, url: field(pr, 'html_url'), number: field(pr, 'number'), title: includeTitle ? field(pr, 'title') : null });
}

function issue({ p, includeTitle }: Ctx): string {
  const action = field<string>(p, 'action');
  const iss = field<P>(p, 'issue');
  return prOrIssueMessage({
    user: sender(p),
    action,
    url: field(iss, 'html_url'),
    number: field(iss, 'number'),
    message: action === 'assigned' || action === 'unassigned' ? null : (optional<string>(iss, 'body') ?? null),
    title: includeTitle ? field(iss, 'title') : null,
    assigneeUpdated: optional(p, 'assignee', 'login') ?? null,
    type: 'issue',
  });
}

function issueComment({ p, includeTitle }: Ctx): string {
  const iss = field<P>(p, 'issue');
  const action = field<string>(p, 'action');
  const url = field<string>(p, 'comment', 'html_url');
  return prOrIssueMessage({
    user: sender(p),
    action: `${action === 'created' ? '[commented]' : `${action} a [comment]`}(${url}) on`,
    url: field(iss, 'html_url'),
    number: field(iss, 'number'),
    message: field(p, 'comment', 'body'),
    title: includeTitle ? field(iss, 'title') : null,
    type: 'pull_request' in iss ? 'PR' : 'issue',
  });
}

function pushCommits({ p }: Ctx): string {
  const commits: CommitData[] = field<P[]>(p, 'commits').map((c) => ({
    name: optional<string>(c, 'author', 'username') || field<string>(c, 'author', 'name'),
    sha: field(c, 'id'),
    url: field(c, 'url'),
    message: field(c, 'message'),
  }));
  const branch = field<string>(p, 'ref').replace(/^refs\/heads\//, '');
  return pushCommitsMessage(sender(p), field(p, 'compare'), branch, commits, { deleted: field(p, 'deleted'), forcePush: field(p, 'forced') });
}

const BODIES: Record<string, (c: Ctx) => string> = {
  ping: ({ p }) => setupMessage(NAME, sender(p)),
  push_commits: pushCommits,
  push_tags: ({ p }) => pushTagMessage(sender(p), field<string>(p, 'ref').replace(/^refs\/tags\//, ''), field(p, 'created') ? 'pushed' : 'removed'),
  opened_pull_request: openedOrUpdatedPr,
  updated_pull_request: openedOrUpdatedPr,
  assigned_or_unassigned_pull_request: assignedPr,
  closed_pull_request: closedPr,
  issues: issue,
  issue_comment: issueComment,
  star: ({ p }) => `[${sender(p)}](${field(p, 'sender', 'html_url')}) starred the repository [${field(p, 'repository', 'full_name')}](${field(p, 'repository', 'html_url')}).`,
  watch: ({ p }) => `${sender(p)} starred the repository [${field(p, 'repository', 'full_name')}](${field(p, 'repository', 'html_url')}).`,
  fork: ({ p }) => `${sender(p)} forked [${field(p, 'forkee', 'name')}](${field(p, 'forkee', 'html_url')}).`,
  create: ({ p }) => `${sender(p)} created ${field(p, 'ref_type')} ${field(p, 'ref')}.`,
  delete: ({ p }) => `${sender(p)} deleted ${field(p, 'ref_type')} ${field(p, 'ref')}.`,
  public: ({ p }) => `${sender(p)} made the repository [${field(p, 'repository', 'full_name')}](${field(p, 'repository', 'html_url')}) public.`,
};

/** get_zulip_event_name: null for events deliberately ignored. */
function zulipEvent(header: string, p: P, branches: string | undefined): string | null {
  const action = optional<string>(p, 'action');
  if (header === 'pull_request') {
    if (action === 'opened' || action === 'reopened') return 'opened_pull_request';
    if (action === 'synchronize' || action === 'edited') return 'updated_pull_request';
    if (action === 'assigned' || action === 'unassigned') return 'assigned_or_unassigned_pull_request';
    if (action === 'closed') return 'closed_pull_request';
    if (action && IGNORED_PULL_REQUEST_ACTIONS.has(action)) return null;
  } else if (header === 'push') {
    const ref = field<string>(p, 'ref');
    if (ref.startsWith('refs/heads/gh-readonly-queue/')) return null;
    if (ref.startsWith('refs/heads/')) return branchNotifiable(ref.replace(/^refs\/heads\//, ''), branches) ? 'push_commits' : null;
    return 'push_tags';
  } else if (header === 'issues') {
    if (action === 'labeled' || action === 'unlabeled' || action === 'milestoned' || action === 'demilestoned' || action === 'transferred') {
      throw unsupportedEvent(NAME, `issues:${action}`);
    }
    return 'issues';
  } else if (header in BODIES) {
    return header;
  } else if (IGNORED_EVENTS.has(header)) {
    return null;
  }
  throw unsupportedEvent(NAME, `${header}:${action ?? '???'}`);
}

function topicFor(p: P, event: string): string {
  if (event.includes('pull_request')) return TOPIC_WITH_PR_OR_ISSUE(repoName(p), 'PR', field(p, 'pull_request', 'number'), field(p, 'pull_request', 'title'));
  if (event.startsWith('issue')) return TOPIC_WITH_PR_OR_ISSUE(repoName(p), 'pull_request' in field<P>(p, 'issue') ? 'PR' : 'issue', field(p, 'issue', 'number'), field(p, 'issue', 'title'));
  if (event === 'push_commits') return TOPIC_WITH_BRANCH(repoName(p), field<string>(p, 'ref').replace(/^refs\/heads\//, ''));
  if (event === 'ping' && !optional(p, 'repository')) return field(p, 'organization', 'login');
  return repoName(p);
}

function handle(req: WebhookRequest): WebhookMessage[] {
  const header = eventHeader(req, 'X-GitHub-Event');
  const p = req.payload as P;
  if (optional(p, 'repository') && optional(p, 'repository', 'private') === true && req.params.ignore_private_repositories === 'true') return [];
  // An edited comment whose text did not change says nothing new.
  if (header.includes('comment') && optional(p, 'action') === 'edited' && optional(p, 'changes', 'body', 'from') === optional(p, 'comment', 'body')) return [];
  const event = zulipEvent(header, p, req.params.branches);
  if (event === null) return [];
  return [{ topic: topicFor(p, event), body: BODIES[event]({ p, includeTitle: req.userSpecifiedTopic }), eventType: event }];
}

registerIntegration({
  name: 'github',
  displayName: 'GitHub',
  webhookName: 'GitHub',
  allEventTypes: Object.keys(BODIES),
  params: ['branches', 'ignore_private_repositories'],
  handle,
});
