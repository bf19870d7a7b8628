import { log } from '../../lib/log.js';
import { BRANCHES_OPTION, eventHeader, field, registerIntegration, unsupportedEvent, type WebhookMessage, type WebhookRequest } from './registry.js';
import {
  branchNotifiable,
  commitsCommentMessage,
  endsWithPunctuation,
  forcePushMessage,
  issueMessage,
  prOrIssueMessage,
  pushCommitsMessage,
  pushTagMessage,
  removeBranchMessage,
  shortSha,
  topicWithBranch,
  topicWithPrOrIssue,
} from './git.js';
import { pyStr, truthy } from './py.js';

/**
 * Bitbucket Cloud (zerver/webhooks/bitbucket2/view.py). The payload's keys tell the event apart;
 * only pull request events need the X-Event-Key header. Bitbucket escapes the webhook URL twice,
 * so `stream` and `topic` are decoded once more (unquote_url_parameters).
 */
type P = Record<string, any>;
type Body = (p: P, includeTitle: boolean) => string;

/** get_user_info: since GDPR, Bitbucket sends a display name or a nickname, not a username. */
export function userInfo(user: P): string {
  if ('display_name' in user) return field(user, 'display_name');
  if ('nickname' in user) return field(user, 'nickname');
  // The reference logs this as unsupported and still sends the message.
  log.warn({ webhook: 'Bitbucket2' }, 'Could not find display_name/nickname field');
  return 'Unknown user';
}

const actor = (p: P) => userInfo(field<P>(p, 'actor'));
const href = (o: P) => field<string>(o, 'links', 'html', 'href');
const repoName = (p: P) => field<string>(p, 'repository', 'name');

const PULL_REQUEST_ACTIONS = new Set(['approved', 'unapproved', 'created', 'updated', 'rejected', 'fulfilled', 'comment_created', 'comment_updated', 'comment_deleted']);

/** get_type */
function eventType(req: WebhookRequest, p: P): string {
  if ('push' in p) return 'push';
  if ('fork' in p) return 'fork';
  if ('comment' in p && 'commit' in p) return 'commit_comment';
  if ('commit_status' in p) return 'change_commit_status';
  if ('issue' in p) return 'changes' in p ? 'issue_updated' : 'comment' in p ? 'issue_commented' : 'issue_created';
  const key = eventHeader(req, 'X-Event-Key');
  if ('pullrequest' in p) {
    const action = /^pullrequest:(.*)$/.exec(key)?.[1];
    if (action !== undefined && PULL_REQUEST_ACTIONS.has(action)) return `pull_request_${action}`;
  } else if (key === 'repo:updated') {
    return key;
  }
  throw unsupportedEvent('Bitbucket2', key);
}

/** The thing a push change is about: the new ref, or the old one when it was deleted. */
const changeRef = (change: P): P => (truthy(change.new) ? change.new : field<P>(change, 'old'));

function pushBody(p: P, change: P): string {
  if (field(changeRef(change), 'type') === 'tag') {
    const tag = truthy(change.new) ? change.new : field<P>(change, 'old');
    return pushTagMessage(actor(p), field(tag, 'name'), truthy(change.new) ? 'pushed' : 'removed', href(tag));
  }
  if (change.new === null || change.new === undefined) return removeBranchMessage(actor(p), field(change, 'old', 'name'));
  if (field<boolean>(change, 'forced')) return forcePushMessage(actor(p), href(change), field(change, 'new', 'name'), field(change, 'new', 'target', 'hash'));
  const commits = field<P[]>(change, 'commits').map((c) => ({
    name: 'user' in field<P>(c, 'author') ? userInfo(field(c, 'author', 'user')) : field<string>(c, 'author', 'raw').trim().split(/\s+/)[0],
    sha: field<string>(c, 'hash'),
    url: href(c),
    message: field<string>(c, 'message'),
  }));
  return pushCommitsMessage({ user: actor(p), compareUrl: href(change), branch: field(change, 'new', 'name'), commits, isTruncated: field(change, 'truncated') });
}

function pushTopic(p: P, change: P): string {
  if (field(changeRef(change), 'type') === 'tag') return repoName(p);
  return topicWithBranch(repoName(p), field(changeRef(change), 'name'));
}

function issueAction(action: string): Body {
  return (p, includeTitle) => {
    const issue = field<P>(p, 'issue');
    const created = action === 'created';
    return issueMessage({
      user: actor(p),
      action,
      url: href(issue),
      number: field(issue, 'id'),
      message: created ? field(issue, 'content', 'raw') : null,
      assignee: created && truthy(issue.assignee) ? userInfo(issue.assignee) : null,
      title: includeTitle ? field(issue, 'title') : null,
    });
  };
}

function pullRequestAction(action: string): Body {
  return (p, includeTitle) => {
    const pr = field<P>(p, 'pullrequest');
    const merged = action === 'merged';
    return prOrIssueMessage({
      user: actor(p),
      action,
      url: href(pr),
      number: field(pr, 'id'),
      targetBranch: merged ? field(pr, 'source', 'branch', 'name') : null,
      baseBranch: merged ? field(pr, 'destination', 'branch', 'name') : null,
      title: includeTitle ? field(pr, 'title') : null,
    });
  };
}

function pullRequestCreatedOrUpdated(action: string): Body {
  return (p, includeTitle) => {
    const pr = field<P>(p, 'pullrequest');
    const created = action === 'created';
    return prOrIssueMessage({
      user: actor(p),
      action,
      url: href(pr),
      number: field(pr, 'id'),
      targetBranch: created ? field(pr, 'source', 'branch', 'name') : null,
      baseBranch: created ? field(pr, 'destination', 'branch', 'name') : null,
      message: field(pr, 'description'),
      assignee: truthy(pr.reviewers) ? userInfo(pr.reviewers[0]) : null,
      title: includeTitle ? field(pr, 'title') : null,
    });
  };
}

function pullRequestComment(action: string | null): Body {
  return (p, includeTitle) => {
    const link = `(${href(field(p, 'comment'))})`;
    return prOrIssueMessage({
      user: actor(p),
      action: `${action === null ? `[commented]${link}` : `${action} a [comment]${link}`} on`,
      url: href(field(p, 'pullrequest')),
      number: field(p, 'pullrequest', 'id'),
      message: field(p, 'comment', 'content', 'raw'),
      title: includeTitle ? field(p, 'pullrequest', 'title') : null,
    });
  };
}

function commitStatus(p: P): string {
  const commitId = field<string>(p, 'commit_status', 'links', 'commit', 'href').split('/').at(-1)!;
  const commit = `[${shortSha(commitId)}](${href(field(p, 'repository'))}/commits/${commitId})`;
  return `[System ${field(p, 'commit_status', 'key')}](${field(p, 'commit_status', 'url')}) changed status of ${commit} to ${field(p, 'commit_status', 'state')}.`;
}

/** repo:updated: one line per changed property, values as Python prints them. */
function repoUpdated(p: P): string {
  let body = '';
  for (const change of ['website', 'name', 'links', 'language', 'full_name', 'description']) {
    const { new: now, old } = field<P>(p, 'changes', change);
    const label = change === 'full_name' ? 'full name' : change;
    if (!truthy(now)) continue;
    const from = truthy(old) ? ` from **${pyStr(old)}**` : '';
    const line = `${actor(p)} changed the ${label} of the **${repoName(p)}** repo${from} to **${pyStr(now)}**`;
    body += `${endsWithPunctuation(pyStr(now)) ? line : `${line}.`}\n`;
  }
  return body;
}

const BODIES: Record<string, Body> = {
  fork: (p) => `${actor(p)} forked the repository into [${field(p, 'fork', 'full_name')}](${href(field(p, 'fork'))}).`,
  commit_comment: (p) => commitsCommentMessage(actor(p), `[commented](${href(field(p, 'comment'))})`, href(field(p, 'comment', 'commit')), field(p, 'comment', 'commit', 'hash'), field(p, 'comment', 'content', 'raw')),
  change_commit_status: commitStatus,
  issue_updated: issueAction('updated'),
  issue_created: issueAction('created'),
  issue_commented: (p, includeTitle) => issueAction(`[commented](${href(field(p, 'comment'))}) on`)(p, includeTitle),
  pull_request_created: pullRequestCreatedOrUpdated('created'),
  pull_request_updated: pullRequestCreatedOrUpdated('updated'),
  pull_request_approved: pullRequestAction('approved'),
  pull_request_unapproved: pullRequestAction('unapproved'),
  pull_request_fulfilled: pullRequestAction('merged'),
  pull_request_rejected: pullRequestAction('rejected'),
  pull_request_comment_created: pullRequestComment(null),
  pull_request_comment_updated: pullRequestComment('updated'),
  pull_request_comment_deleted: pullRequestComment('deleted'),
  'repo:updated': repoUpdated,
};

function topicFor(p: P, type: string): string {
  if (type.startsWith('pull_request')) return topicWithPrOrIssue(repoName(p), 'PR', field(p, 'pullrequest', 'id'), field(p, 'pullrequest', 'title'));
  if (type.startsWith('issue')) return topicWithPrOrIssue(repoName(p), 'issue', field(p, 'issue', 'id'), field(p, 'issue', 'title'));
  return repoName(p);
}

function handle(req: WebhookRequest): WebhookMessage[] {
  const p = req.payload as P;
  const type = eventType(req, p);
  if (type !== 'push') return [{ topic: topicFor(p, type), body: BODIES[type](p, req.userSpecifiedTopic), eventType: type, unquoteUrlParameters: true }];
  const changes = field<P[]>(p, 'push', 'changes');
  // A push without changes says nothing.
  if (changes.length === 0) return [];
  // The last change decides whether a push to branches not asked for is dropped.
  const last = changeRef(changes[changes.length - 1]);
  if (field(last, 'type') !== 'tag' && !branchNotifiable(field(last, 'name'), req.params.branches)) return [];
  return changes.map((change) => ({ topic: pushTopic(p, change), body: pushBody(p, change), eventType: 'push', unquoteUrlParameters: true }));
}

registerIntegration({
  name: 'bitbucket2',
  displayName: 'Bitbucket',
  webhookName: 'Bitbucket2',
  allEventTypes: ['change_commit_status', 'pull_request_comment_created', 'pull_request_updated', 'pull_request_unapproved', 'push', 'pull_request_approved', 'pull_request_fulfilled', 'issue_created', 'issue_commented', 'fork', 'pull_request_comment_updated', 'pull_request_created', 'pull_request_rejected', 'repo:updated', 'issue_updated', 'commit_comment', 'pull_request_comment_deleted'],
  params: ['branches'],
  urlOptions: [BRANCHES_OPTION],
  handle,
});

