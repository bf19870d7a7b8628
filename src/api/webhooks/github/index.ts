import { BRANCHES_OPTION, IGNORE_PRIVATE_REPOSITORIES_OPTION, eventHeader, field, jsonBoolParam, optional, registerIntegration, unsupportedEvent, type WebhookMessage, type WebhookRequest } from '../registry.js';
import { branchNotifiable, topicWithBranch, topicWithPrOrIssue } from '../git.js';
import { truthy } from '../py.js';
import { branchFromRef, repoName, type Ctx, type P } from './context.js';
import * as issues from './issues.js';
import * as pulls from './pulls.js';
import * as repo from './repo.js';

/**
 * GitHub (zerver/webhooks/github/view.py), and GitHub Sponsors at /external/githubsponsors: the
 * event comes in the X-GitHub-Event header and is refined by the payload's action into one of
 * the reference's event names (which only_events / exclude_events filter on). Events the
 * reference deliberately ignores answer success and post nothing; others are unsupported.
 */

const BODIES: Record<string, (c: Ctx) => string> = {
  commit_comment: issues.commitComment,
  closed_pull_request: pulls.closedPr,
  create: repo.createOrDelete('created'),
  check_run: pulls.checkRun,
  delete: repo.createOrDelete('deleted'),
  deployment: repo.deployment,
  deployment_status: repo.deploymentStatus,
  discussion: issues.discussion,
  discussion_comment: issues.discussionComment,
  fork: repo.fork,
  gollum: repo.wikiPages,
  issue_comment: issues.issueComment,
  issue_labeled_or_unlabeled: issues.issueLabeledOrUnlabeled,
  issue_milestoned_or_demilestoned: issues.issueMilestonedOrDemilestoned,
  issues_opened_via_transfer: issues.issueOpenedViaTransfer,
  issues_transferred: issues.issueTransferred,
  issues: issues.issueEvent,
  member: repo.member,
  membership: repo.membership,
  opened_pull_request: pulls.openedOrUpdatedPr,
  updated_pull_request: pulls.openedOrUpdatedPr,
  assigned_or_unassigned_pull_request: pulls.assignedOrUnassignedPr,
  page_build: repo.pageBuild,
  ping: repo.ping,
  public: repo.publicRepo,
  pull_request_ready_for_review: pulls.readyForReviewPr,
  pull_request_review: pulls.review,
  pull_request_review_comment: pulls.reviewComment,
  pull_request_review_requested: pulls.reviewRequested,
  pull_request_auto_merge: pulls.autoMergePr,
  locked_or_unlocked_pull_request: pulls.lockedOrUnlockedPr,
  push_commits: repo.pushCommits,
  push_tags: repo.pushTags,
  release: repo.release,
  repository: repo.repository,
  star: repo.star,
  status: repo.status,
  team: repo.team,
  team_add: repo.teamAdd,
  watch: repo.watch,
  cancelled: repo.sponsorCancelled,
  created: repo.sponsorCreated,
  edited: repo.sponsorEdited,
  pending_cancellation: repo.sponsorPendingCancellation,
  pending_tier_change: repo.sponsorPendingTierChange,
  tier_changed: repo.sponsorTierChanged,
};

const SPONSORS_EVENT_TYPES = ['cancelled', 'created', 'edited', 'pending_cancellation', 'pending_tier_change', 'tier_changed'];
const IGNORED_EVENTS = new Set(['check_suite', 'label', 'meta', 'milestone', 'organization', 'project_card', 'push__merge_queue', 'repository_vulnerability_alert']);
const IGNORED_PULL_REQUEST_ACTIONS = new Set(['approved', 'converted_to_draft', 'labeled', 'review_request_removed', 'unlabeled']);
// Team actions GitHub documents that the reference does not render (yet).
const IGNORED_TEAM_ACTIONS = new Set(['added_to_repository', 'created', 'deleted', 'removed_from_repository']);

const PULL_REQUEST_EVENTS: Record<string, string> = {
  opened: 'opened_pull_request',
  reopened: 'opened_pull_request',
  synchronize: 'updated_pull_request',
  edited: 'updated_pull_request',
  assigned: 'assigned_or_unassigned_pull_request',
  unassigned: 'assigned_or_unassigned_pull_request',
  closed: 'closed_pull_request',
  review_requested: 'pull_request_review_requested',
  ready_for_review: 'pull_request_ready_for_review',
  locked: 'locked_or_unlocked_pull_request',
  unlocked: 'locked_or_unlocked_pull_request',
  auto_merge_enabled: 'pull_request_auto_merge',
  auto_merge_disabled: 'pull_request_auto_merge',
};

/** get_zulip_event_name: the reference's event name, or null for an event it ignores. */
function zulipEvent(header: string, p: P, branches: string | undefined): string | null {
  if (header === 'pull_request') {
    const action = field<string>(p, 'action');
    if (action in PULL_REQUEST_EVENTS) return PULL_REQUEST_EVENTS[action];
    if (IGNORED_PULL_REQUEST_ACTIONS.has(action)) return null;
  } else if (header === 'pull_request_review') {
    // GitHub follows a submitted review with an empty "edited" event for its body.
    if (field(p, 'action') === 'edited' && Object.keys(optional<P>(p, 'changes') ?? {}).length === 0) return null;
    return 'pull_request_review';
  } else if (header === 'push') {
    const ref = field<string>(p, 'ref');
    if (ref.startsWith('refs/heads/gh-readonly-queue/')) return null;
    if (!ref.startsWith('refs/heads/')) return 'push_tags';
    return branchNotifiable(branchFromRef(ref), branches) ? 'push_commits' : null;
  } else if (header === 'check_run') {
    return field(p, 'check_run', 'status') === 'completed' ? 'check_run' : null;
  } else if (header === 'team') {
    const action = field<string>(p, 'action');
    if (action === 'edited') return 'team';
    if (IGNORED_TEAM_ACTIONS.has(action)) return null;
    throw unsupportedEvent('GitHub', `unsupported team action ${action}`);
  } else if (header === 'issues') {
    const action = field<string>(p, 'action');
    if (action === 'labeled' || action === 'unlabeled') return 'issue_labeled_or_unlabeled';
    if (action === 'milestoned' || action === 'demilestoned') return 'issue_milestoned_or_demilestoned';
    if (action === 'transferred') return 'issues_transferred';
    // A transfer also opens the issue in its new repository.
    if (action === 'opened' && truthy(optional(p, 'changes', 'old_issue'))) return 'issues_opened_via_transfer';
    return 'issues';
  } else if (header in BODIES) {
    return header;
  } else if (IGNORED_EVENTS.has(header)) {
    return null;
  }
  throw unsupportedEvent('GitHub', `${header}:${optional<string>(p, 'action') ?? '???'}`);
}

/** get_topic_based_on_type */
function topicFor(p: P, event: string): string {
  if (event.includes('pull_request')) return topicWithPrOrIssue(repoName(p), 'PR', field(p, 'pull_request', 'number'), field(p, 'pull_request', 'title'));
  if (event.startsWith('issue')) return topicWithPrOrIssue(repoName(p), issues.isPullRequestComment(p) ? 'PR' : 'issue', field(p, 'issue', 'number'), field(p, 'issue', 'title'));
  if (event.startsWith('deployment')) return `${repoName(p)} / Deployment on ${field(p, 'deployment', 'environment')}`;
  if (event === 'membership') return `${field(p, 'organization', 'login')} organization`;
  if (event === 'team') return `team ${field(p, 'team', 'name')}`;
  if (event === 'push_commits') return topicWithBranch(repoName(p), branchFromRef(field(p, 'ref')));
  if (event === 'gollum') return topicWithBranch(repoName(p), 'wiki pages');
  if (event === 'ping' && !truthy(p.repository)) return field(p, 'organization', 'login');
  if (event === 'check_run') return `${repoName(p)} / checks`;
  if (event.startsWith('discussion')) return `${repoName(p)} discussion #${field(p, 'discussion', 'number')}: ${field(p, 'discussion', 'title')}`;
  if (SPONSORS_EVENT_TYPES.includes(event)) return 'sponsors';
  return repoName(p);
}

function handle(req: WebhookRequest): WebhookMessage[] {
  const ignorePrivate = jsonBoolParam(req, 'ignore_private_repositories');
  const includeRepositoryName = jsonBoolParam(req, 'include_repository_name');
  const header = eventHeader(req, 'X-GitHub-Event');
  const p = req.payload as P;
  if ('repository' in p && field(p, 'repository', 'private') === true && ignorePrivate) return [];
  // An edited comment whose text did not change says nothing new (discussion comments aside).
  if (header.includes('comment') && !header.includes('discussion') && optional(p, 'action') === 'edited' && optional(p, 'changes', 'body', 'from') === field(p, 'comment', 'body')) return [];
  const event = zulipEvent(header, p, req.params.branches);
  if (event === null) return [];
  return [{ topic: topicFor(p, event), body: BODIES[event]({ p, includeTitle: req.userSpecifiedTopic, includeRepositoryName }), eventType: event }];
}

registerIntegration({
  name: 'github',
  displayName: 'GitHub',
  webhookName: 'GitHub',
  allEventTypes: Object.keys(BODIES),
  params: ['branches', 'ignore_private_repositories', 'include_repository_name'],
  urlOptions: [BRANCHES_OPTION, IGNORE_PRIVATE_REPOSITORIES_OPTION],
  handle,
});

registerIntegration({ name: 'githubsponsors', displayName: 'GitHub Sponsors', webhookName: 'GitHub', allEventTypes: SPONSORS_EVENT_TYPES, handle });
