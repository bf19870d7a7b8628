import { BRANCHES_OPTION, eventHeader, field, optional, registerIntegration, unsupportedEvent, type WebhookMessage, type WebhookRequest } from './registry.js';
import {
  assigneeString,
  branchNotifiable,
  commitsCommentMessage,
  createBranchMessage,
  endsWithPunctuation,
  prOrIssueMessage,
  pushTagMessage,
  removeBranchMessage,
  topicWithBranch,
  topicWithPrOrIssue,
} from './git.js';

/**
 * Bitbucket Server (zerver/webhooks/bitbucket3/view.py): the payload's eventKey (or the
 * X-Event-Key header) names the event; users are linked to their profiles. As for Bitbucket
 * Cloud, `stream` and `topic` are decoded once more.
 */
type P = Record<string, any>;
type Out = { topic: string; body: string }[];
/** `topic` is the topic the URL gives, if any (the reference's include_title). */
type Handler = (p: P, branches: string | undefined, topic: string | undefined) => Out;

const selfLink = (o: P) => field<string>(o, 'links', 'self', 0, 'href');
const userName = (p: P) => `[${field(p, 'actor', 'name')}](${selfLink(field(p, 'actor'))})`;
const repoName = (p: P) => field<string>(p, 'repository', 'name');

const ping: Handler = (_p, _branches, topic) => [{ topic: topic || 'Bitbucket Server Ping', body: 'Congratulations! The Bitbucket Server webhook was configured successfully!' }];

const repoComment = (action: string): Handler => (p) => {
  const sha = field<string>(p, 'commit');
  const browse = selfLink(field(p, 'repository'));
  const commitUrl = `${browse.endsWith('browse') ? browse.slice(0, -'browse'.length) : browse}commits/${sha}`;
  const text = field<string>(p, 'comment', 'text');
  const message = action === 'deleted their comment' ? `~~${text}~~` : text;
  return [{ topic: repoName(p), body: commitsCommentMessage(userName(p), action, commitUrl, sha, message) }];
};

const repoForked: Handler = (p) => [
  {
    topic: field(p, 'repository', 'origin', 'name'),
    body: `User ${field(p, 'actor', 'displayName')}(login: ${userName(p)}) forked the repository into [${repoName(p)}](${selfLink(field(p, 'repository'))}).`,
  },
];

// A rename is the only change Bitbucket Server reports here.
const repoModified: Handler = (p) => {
  const old = field<string>(p, 'old', 'name');
  const now = field<string>(p, 'new', 'name');
  const body = `${userName(p)} changed the name of the **${old}** repo from **${old}** to **${now}**`;
  return [{ topic: now, body: endsWithPunctuation(now) ? body : `${body}.` }];
};

function branchChange(p: P, change: P): { topic: string; body: string } {
  const type = field<string>(change, 'type');
  const branch = field<string>(change, 'ref', 'displayId');
  let body: string;
  if (type === 'ADD') body = createBranchMessage(userName(p), null, branch);
  else if (type === 'UPDATE') body = `${userName(p)} pushed to branch ${branch}. Head is now ${field(change, 'toHash')}.`;
  else if (type === 'DELETE') body = removeBranchMessage(userName(p), branch);
  else throw unsupportedEvent('Bitbucket3', `${field(p, 'eventKey')}.${type}`);
  return { topic: topicWithBranch(repoName(p), branch), body };
}

function tagChange(p: P, change: P): { topic: string; body: string } {
  const type = field<string>(change, 'type');
  if (type !== 'ADD' && type !== 'DELETE') throw unsupportedEvent('Bitbucket3', `${field(p, 'eventKey')}.${type}`);
  return { topic: repoName(p), body: pushTagMessage(userName(p), field(change, 'ref', 'displayId'), type === 'ADD' ? 'pushed' : 'removed') };
}

const repoPush: Handler = (p, branches) => {
  const out: Out = [];
  for (const change of field<P[]>(p, 'changes')) {
    const target = field<string>(change, 'ref', 'type');
    if (target === 'BRANCH') {
      if (branchNotifiable(field(change, 'ref', 'displayId'), branches)) out.push(branchChange(p, change));
    } else if (target === 'TAG') out.push(tagChange(p, change));
    else throw unsupportedEvent('Bitbucket3', `${field(p, 'eventKey')}.${target}`);
  }
  return out;
};

/** The reviewers, linked: "a", "a and b", "a, b and c"; null without any. */
function reviewers(pr: P): string | null {
  const names = field<P[]>(pr, 'reviewers').map((r) => `[${field(r, 'user', 'name')}](${selfLink(field(r, 'user'))})`);
  return names.length === 0 ? null : assigneeString(names);
}

function prBody(p: P, action: string, topic: string | undefined): string {
  const pr = field<P>(p, 'pullRequest');
  const link = (text: string) => `[PR #${field(pr, 'id')}${topic ? ` ${field(pr, 'title')}` : ''}](${selfLink(pr)})${text}`;
  const common = { user: userName(p), action, url: selfLink(pr), number: field<number>(pr, 'id'), title: topic ? field<string>(pr, 'title') : null };
  if (action === 'opened' || action === 'modified') {
    const opened = action === 'opened';
    return prOrIssueMessage({
      ...common,
      targetBranch: opened ? field(pr, 'fromRef', 'displayId') : null,
      baseBranch: opened ? field(pr, 'toRef', 'displayId') : null,
      message: optional<string>(pr, 'description') ?? null,
      reviewer: reviewers(pr),
    });
  }
  if (action === 'merged') return prOrIssueMessage({ ...common, targetBranch: field(pr, 'fromRef', 'displayId'), baseBranch: field(pr, 'toRef', 'displayId') });
  if (action === 'needs_work') return `${userName(p)} marked ${link(' as "needs work".')}`;
  if (action === 'reviewers_updated') {
    const names = reviewers(pr);
    if (names) return `${userName(p)} reassigned ${link(` to ${names}.`)}`;
    const text = `${userName(p)} removed all reviewers from ${link('')}`;
    return !topic || !endsWithPunctuation(field(pr, 'title')) ? `${text}.` : text;
  }
  return prOrIssueMessage(common);
}

const pullRequestTopic = (pr: P) => topicWithPrOrIssue(field(pr, 'toRef', 'repository', 'name'), 'PR', field(pr, 'id'), field(pr, 'title'));

const pullRequest = (action: string): Handler => (p, _branches, topic) => [{ topic: pullRequestTopic(field(p, 'pullRequest')), body: prBody(p, action, topic) }];

const pullRequestComment = (action: string): Handler => (p, _branches, topic) => {
  const pr = field<P>(p, 'pullRequest');
  const text = field<string>(p, 'comment', 'text');
  const message = action === 'deleted their comment on' ? `~~${text}~~` : text;
  return [{ topic: pullRequestTopic(pr), body: prOrIssueMessage({ user: userName(p), action, url: selfLink(pr), number: field(pr, 'id'), message, title: topic ? field(pr, 'title') : null }) }];
};

const HANDLERS: Record<string, Handler> = {
  'diagnostics:ping': ping,
  'repo:comment:added': repoComment('commented'),
  'repo:comment:edited': repoComment('edited their comment'),
  'repo:comment:deleted': repoComment('deleted their comment'),
  'repo:forked': repoForked,
  'repo:modified': repoModified,
  'repo:refs_changed': repoPush,
  'pr:comment:added': pullRequestComment('commented on'),
  'pr:comment:edited': pullRequestComment('edited their comment on'),
  'pr:comment:deleted': pullRequestComment('deleted their comment on'),
  'pr:declined': pullRequest('declined'),
  'pr:deleted': pullRequest('deleted'),
  'pr:merged': pullRequest('merged'),
  'pr:modified': pullRequest('modified'),
  'pr:opened': pullRequest('opened'),
  'pr:reviewer:approved': pullRequest('approved'),
  'pr:reviewer:needs_work': pullRequest('needs_work'),
  'pr:reviewer:updated': pullRequest('reviewers_updated'),
  'pr:reviewer:unapproved': pullRequest('unapproved'),
};

function handle(req: WebhookRequest): WebhookMessage[] {
  const p = req.payload as P;
  const key = 'eventKey' in p ? field<string>(p, 'eventKey') : eventHeader(req, 'X-Event-Key');
  if (!Object.hasOwn(HANDLERS, key)) throw unsupportedEvent('Bitbucket3', key);
  return HANDLERS[key](p, req.params.branches, req.params.topic).map(({ topic, body }) => ({ topic, body, eventType: key, unquoteUrlParameters: true }));
}

registerIntegration({ name: 'bitbucket3', displayName: 'Bitbucket Server', webhookName: 'Bitbucket3', allEventTypes: Object.keys(HANDLERS), params: ['branches'], urlOptions: [BRANCHES_OPTION], handle });
