import { BRANCHES_OPTION, eventHeader, field, jsonBoolParam, optional, registerIntegration, unsupportedEvent, type WebhookMessage, type WebhookRequest } from './registry.js';
import {
  branchNotifiable,
  commitsCommentMessage,
  EMPTY_SHA,
  issueMessage,
  prOrIssueMessage,
  pushCommitsMessage,
  pushTagMessage,
  quote,
  releaseMessageWithoutUser,
  removeBranchMessage,
  topicWithPrOrIssue,
} from './git.js';
import { truthy } from './py.js';

/**
 * GitLab (zerver/webhooks/gitlab/view.py): the X-GitLab-Event header names the hook, refined by
 * the object's action or the commented object's type ("Issue Hook close", "Note Hook Commit").
 * System hooks name theirs in the payload. A topic given in the URL puts a link to the project
 * before every message.
 */
type P = Record<string, any>;
type Body = (p: P, includeTitle: boolean) => string;

const repoName = (p: P) => ('project' in p ? field<string>(p, 'project', 'name') : field<string>(p, 'repository', 'name'));
const homepage = (p: P) => ('project' in p ? field<string>(p, 'project', 'web_url') : field<string>(p, 'repository', 'homepage'));
const userName = (p: P) => field<string>(p, 'user', 'name');
const branchName = (p: P) => field<string>(p, 'ref').replace('refs/heads/', '');
const attrs = (p: P) => field<P>(p, 'object_attributes');
const title = (p: P, includeTitle: boolean, ...path: string[]) => (includeTitle ? field<string>(p, ...path, 'title') : null);

/** The assignees' full names: the list, else the single assignee. */
function assignees(p: P): string[] {
  const list = truthy(p.assignees) ? (p.assignees as P[]) : truthy(p.assignee) ? [p.assignee as P] : [];
  return list.map((a) => field<string>(a, 'name'));
}

function push(p: P): string {
  if (truthy(p.after) && p.after === EMPTY_SHA) return removeBranchMessage(field(p, 'user_name'), branchName(p));
  const commits = field<P[]>(p, 'commits').map((c) => ({ name: field<string>(c, 'author', 'name'), sha: field<string>(c, 'id'), message: field<string>(c, 'message'), url: field<string>(c, 'url') }));
  const compareUrl = `${homepage(p)}/-/compare/${field(p, 'before')}...${field(p, 'after')}`;
  return pushCommitsMessage({ user: field(p, 'user_name'), compareUrl, branch: branchName(p), commits });
}

function issueCreated(p: P, includeTitle: boolean): string {
  // Hidden (HTML comment) parts of the description stay hidden.
  const description = truthy(attrs(p).description) ? field<string>(attrs(p), 'description').replace(/<!--[\s\S]*?-->/g, '').trimEnd() : null;
  return issueMessage({
    user: userName(p),
    action: 'created',
    url: field(attrs(p), 'url'),
    number: field(attrs(p), 'iid'),
    message: description,
    assignees: assignees(p),
    title: title(p, includeTitle, 'object_attributes'),
  });
}

const issueEvent = (action: string) => (p: P, includeTitle: boolean) =>
  issueMessage({ user: userName(p), action, url: field(attrs(p), 'url'), number: field(attrs(p), 'iid'), title: title(p, includeTitle, 'object_attributes') });

const mergeRequest = (action: string) => (p: P, includeTitle: boolean) => {
  const merged = action === 'merged';
  return prOrIssueMessage({
    user: userName(p),
    action,
    url: field(attrs(p), 'url'),
    number: field(attrs(p), 'iid'),
    targetBranch: merged ? field(attrs(p), 'source_branch') : null,
    baseBranch: merged ? field(attrs(p), 'target_branch') : null,
    type: 'MR',
    title: title(p, includeTitle, 'object_attributes'),
  });
};

const mergeRequestOpenedOrUpdated = (action: string) => (p: P, includeTitle: boolean) => {
  const created = action === 'created';
  return prOrIssueMessage({
    user: userName(p),
    action,
    url: field(attrs(p), 'url'),
    number: field(attrs(p), 'iid'),
    targetBranch: created ? field(attrs(p), 'source_branch') : null,
    baseBranch: created ? field(attrs(p), 'target_branch') : null,
    message: optional<string>(attrs(p), 'description') ?? null,
    assignees: assignees(p),
    type: 'MR',
    title: title(p, includeTitle, 'object_attributes'),
  });
};

// An update that brings an old revision is new commits on the merge request.
const mergeRequestUpdated = (p: P, includeTitle: boolean) =>
  truthy(attrs(p).oldrev) ? mergeRequest('added commit(s) to')(p, includeTitle) : mergeRequestOpenedOrUpdated('updated')(p, includeTitle);

const commentAction = (p: P) => `[commented](${field(attrs(p), 'url')}) on`;

const commentedCommit = (p: P) =>
  commitsCommentMessage(userName(p), `[commented](${field(attrs(p), 'url')})`, field(p, 'commit', 'url'), field(p, 'commit', 'id'), field(attrs(p), 'note'));

const commentedOn = (object: string, type: string, urlOf: (p: P) => string, id: string) => (p: P, includeTitle: boolean) =>
  prOrIssueMessage({ user: userName(p), action: commentAction(p), url: urlOf(p), number: field(p, object, id), message: field(attrs(p), 'note'), type, title: title(p, includeTitle, object) });

const snippetUrl = (p: P) => ('url' in field<P>(p, 'snippet') ? field<string>(p, 'snippet', 'url') : `${field(p, 'project', 'web_url')}/-/snippets/${field(p, 'snippet', 'id')}`);

/** A design comment: the payload names the design only by its path, designs/issue-<n>/<name>. */
function commentedDesign(p: P): string {
  const path = field<string>(attrs(p), 'position', 'new_path').split('/');
  if (path.length !== 3) throw unsupportedEvent('GitLab', 'Note Hook DesignManagement::Design');
  const [, issuePath, design] = path;
  const designUrl = `${field(p, 'repository', 'homepage')}/-/issues/${issuePath.split('-').at(-1)}/designs/${design}`;
  return `${userName(p)} [commented](${designUrl}#note_${field(attrs(p), 'id')}) on design [${design}](${designUrl}):\n${quote(field(attrs(p), 'note'))}`;
}

const wikiPage = (action: string) => (p: P) => `${userName(p)} ${action} [wiki page "${field(attrs(p), 'title')}"](${field(attrs(p), 'url')}).`;

function build(p: P): string {
  const status = field<string>(p, 'build_status');
  const action = status === 'created' ? 'was created' : status === 'running' ? 'started' : `changed status to ${status}`;
  return `Build ${field(p, 'build_name')} from ${field(p, 'build_stage')} stage ${action}.`;
}

function pipeline(p: P): string {
  const status = field<string>(attrs(p), 'status');
  const action = status === 'pending' ? 'was created' : status === 'running' ? 'started' : `changed status to ${status}`;
  const home = homepage(p);
  let builds = '';
  for (const b of field<P[]>(p, 'builds')) {
    const url = `${home}/-/jobs/${field(b, 'id')}`;
    const artifact = optional<string>(b, 'artifacts_file', 'filename');
    const line = artifact ? `  * built artifact: *${artifact}* [[Browse](${url}/artifacts/browse)|[Download](${url}/artifacts/download)]\n` : '';
    builds += `* [${field(b, 'name')}](${url}) - ${field(b, 'status')}\n${line}`;
  }
  return `[Pipeline (${field(attrs(p), 'id')})](${home}/-/pipelines/${field(attrs(p), 'id')}) ${action} with build(s):\n${builds.slice(0, -1)}.`;
}

function release(p: P): string {
  const action = `${field(p, 'action')}d`;
  if (action === 'deleted') return releaseMessageWithoutUser(field(p, 'name'), null, field(p, 'tag'), action);
  const body = releaseMessageWithoutUser(field(p, 'name'), field(p, 'url'), field(p, 'tag'), action);
  return 'description' in p ? body + quote(field(p, 'description')) : body;
}

function featureFlag(p: P): string {
  const action = truthy(attrs(p).active) ? 'activated' : 'deactivated';
  return `${field(p, 'user', 'username')} ${action} the feature flag [${field(attrs(p), 'name')}](${field(p, 'project', 'web_url')}/-/feature_flags).`;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

function accessTokenExpiry(p: P): string {
  const [y, m, d] = field<string>(attrs(p), 'expires_at').slice(0, 10).split('-');
  const url = 'group' in p ? `https://gitlab.com/groups/${field(p, 'group', 'group_path')}/-/settings/access_tokens` : `${field(p, 'project', 'web_url')}/-/settings/access_tokens`;
  return `The access token [${field(attrs(p), 'name')}](${url}) will expire on ${MONTHS[Number(m) - 1]} ${d}, ${y}.`;
}

function deployment(p: P): string {
  const deployable = optional<string>(p, 'deployable_url');
  const what = deployable ? `[deployment](${deployable})` : 'deployment';
  const status = field<string>(p, 'status');
  if (status === 'running') {
    const commitUrl = field<string>(p, 'commit_url');
    const sha = commitUrl.split('/').at(-1)!.slice(0, 7);
    return `[${userName(p)}](${field(p, 'user_url')}) started a new ${what}:\n> [${sha}](${commitUrl}) ${field(p, 'commit_title')}`;
  }
  const texts: Record<string, string> = { success: `The ${what} was successful.`, failed: `The ${what} failed.`, canceled: `The ${what} was canceled.` };
  if (!(status in texts)) throw unsupportedEvent('GitLab', `Deployment Hook ${status}`);
  return texts[status];
}

const BODIES: Record<string, Body> = {
  'Push Hook': push,
  'Tag Push Hook': (p) => pushTagMessage(field(p, 'user_name'), field<string>(p, 'ref').replace('refs/tags/', ''), truthy(p.checkout_sha) ? 'pushed' : 'removed'),
  'Test Hook': (p) => `Webhook for **${repoName(p)}** has been configured successfully! :tada:`,
  'Issue Hook open': issueCreated,
  'Issue Hook close': issueEvent('closed'),
  'Issue Hook reopen': issueEvent('reopened'),
  'Issue Hook update': issueEvent('updated'),
  'Confidential Issue Hook open': issueCreated,
  'Confidential Issue Hook close': issueEvent('closed'),
  'Confidential Issue Hook reopen': issueEvent('reopened'),
  'Confidential Issue Hook update': issueEvent('updated'),
  'Note Hook Commit': commentedCommit,
  'Note Hook MergeRequest': commentedOn('merge_request', 'MR', (p) => field(p, 'merge_request', 'url'), 'iid'),
  'Note Hook Issue': commentedOn('issue', 'issue', (p) => field(p, 'issue', 'url'), 'iid'),
  'Confidential Note Hook Issue': commentedOn('issue', 'issue', (p) => field(p, 'issue', 'url'), 'iid'),
  'Note Hook DesignManagement::Design': commentedDesign,
  'Confidential Note Hook DesignManagement::Design': commentedDesign,
  'Note Hook Snippet': commentedOn('snippet', 'snippet', snippetUrl, 'id'),
  'Merge Request Hook approved': mergeRequest('approved'),
  'Merge Request Hook unapproved': mergeRequest('unapproved'),
  // approval and unapproval come when a merge request needs more than one approver.
  'Merge Request Hook approval': mergeRequest('approval'),
  'Merge Request Hook unapproval': mergeRequest('unapproval'),
  'Merge Request Hook open': mergeRequestOpenedOrUpdated('created'),
  'Merge Request Hook update': mergeRequestUpdated,
  'Merge Request Hook merge': mergeRequest('merged'),
  'Merge Request Hook close': mergeRequest('closed'),
  'Merge Request Hook reopen': mergeRequest('reopened'),
  'Wiki Page Hook create': wikiPage('created'),
  'Wiki Page Hook update': wikiPage('updated'),
  'Job Hook': build,
  'Build Hook': build,
  'Pipeline Hook': pipeline,
  'Release Hook': release,
  'Feature Flag Hook': featureFlag,
  'Resource Access Token Hook': accessTokenExpiry,
  'Deployment Hook': deployment,
};

/** Python's str.title(): each run of letters capitalized. */
const titleCase = (s: string) => s.replace(/[A-Za-z]+/g, (w) => w[0].toUpperCase() + w.slice(1).toLowerCase());

/** get_event: the refined event name, or null for a push to a branch not asked for. */
function eventName(req: WebhookRequest, p: P): string | null {
  let event = eventHeader(req, 'X-GitLab-Event');
  if (event === 'System Hook') {
    const name = 'event_name' in p ? field<string>(p, 'event_name') : field<string>(p, 'object_kind');
    event = `${titleCase(name.split('__')[0].replaceAll('_', ' '))} Hook`;
  }
  if (['Confidential Issue Hook', 'Issue Hook', 'Merge Request Hook', 'Wiki Page Hook'].includes(event)) event = `${event} ${optional<string>(attrs(p), 'action') ?? 'open'}`;
  else if (event === 'Confidential Note Hook' || event === 'Note Hook') event = `${event} ${field(attrs(p), 'noteable_type')}`;
  else if (event === 'Push Hook' && !branchNotifiable(branchName(p), req.params.branches)) return null;
  if (event in BODIES) return event;
  throw unsupportedEvent('GitLab', event);
}

function topicFor(event: string, p: P, useMergeRequestTitle: boolean): string {
  const mrTitle = (object: string) => (useMergeRequestTitle ? field<string>(p, object, 'title') : '');
  if (event === 'Push Hook') return `${repoName(p)} / ${branchName(p)}`;
  if (event === 'Job Hook' || event === 'Build Hook') return `${field(p, 'repository', 'name')} / ${branchName(p)}`;
  if (event === 'Pipeline Hook') return `${repoName(p)} / ${field<string>(attrs(p), 'ref').replace('refs/heads/', '')}`;
  if (event.startsWith('Merge Request Hook')) return topicWithPrOrIssue(repoName(p), 'MR', field(attrs(p), 'iid'), mrTitle('object_attributes'));
  if (event.startsWith('Issue Hook') || event.startsWith('Confidential Issue Hook')) return topicWithPrOrIssue(repoName(p), 'issue', field(attrs(p), 'iid'), field(attrs(p), 'title'));
  if (event === 'Note Hook Issue' || event === 'Confidential Note Hook Issue') return topicWithPrOrIssue(repoName(p), 'issue', field(p, 'issue', 'iid'), field(p, 'issue', 'title'));
  if (event.endsWith('DesignManagement::Design')) return `${repoName(p)} / design ${field<string>(attrs(p), 'position', 'new_path').split('/').at(-1)}`;
  if (event === 'Note Hook MergeRequest') return topicWithPrOrIssue(repoName(p), 'MR', field(p, 'merge_request', 'iid'), mrTitle('merge_request'));
  if (event === 'Note Hook Snippet') return topicWithPrOrIssue(repoName(p), 'snippet', field(p, 'snippet', 'id'), field(p, 'snippet', 'title'));
  if (event === 'Resource Access Token Hook' && truthy(p.group)) return field(p, 'group', 'group_name');
  if (event === 'Deployment Hook') return `${repoName(p)} / ${field(p, 'environment')}`;
  return repoName(p);
}

function handle(req: WebhookRequest): WebhookMessage[] {
  const useMergeRequestTitle = jsonBoolParam(req, 'use_merge_request_title', true);
  const p = req.payload as P;
  const event = eventName(req, p);
  if (event === null) return [];
  let body = BODIES[event](p, req.userSpecifiedTopic);
  // The topic no longer names the project, so the message links it.
  if (req.params.topic) body = `[[${repoName(p)}](${homepage(p)})] ${body}`;
  return [{ topic: topicFor(event, p, useMergeRequestTitle), body, eventType: event }];
}

registerIntegration({ name: 'gitlab', displayName: 'GitLab', webhookName: 'GitLab', allEventTypes: Object.keys(BODIES), params: ['branches', 'use_merge_request_title'], urlOptions: [BRANCHES_OPTION], handle });
