import { field, optional } from '../registry.js';
import { prOrIssueMessage, shortSha } from '../git.js';
import { pyStr, truthy } from '../py.js';
import { repoUrl, senderName, type Ctx, type P } from './context.js';

/** The pull request events' message bodies (the reference's view.py, its pull_request_* functions). */

const pr = (p: P) => field<P>(p, 'pull_request');
const prTitle = ({ p, includeTitle }: Ctx) => (includeTitle ? field<string>(p, 'pull_request', 'title') : null);

export function openedOrUpdatedPr(c: Ctx): string {
  const { p } = c;
  let action = field<string>(p, 'action');
  if (action === 'synchronize') action = 'updated';
  const changes = optional<P>(p, 'changes') ?? {};
  const branches = action === 'opened' || action === 'merged';
  return prOrIssueMessage({
    user: senderName(p),
    action,
    url: field(pr(p), 'html_url'),
    targetBranch: branches ? field(pr(p), 'head', 'label') : null,
    baseBranch: branches ? field(pr(p), 'base', 'label') : null,
    message: 'body' in changes || action === 'opened' ? (optional<string>(pr(p), 'body') ?? null) : null,
    assignee: truthy(pr(p).assignee) ? field(pr(p), 'assignee', 'login') : null,
    number: field(pr(p), 'number'),
    title: prTitle(c),
  });
}

export function assignedOrUnassignedPr(c: Ctx): string {
  const { p } = c;
  return prOrIssueMessage({
    user: senderName(p),
    action: field(p, 'action'),
    url: field(pr(p), 'html_url'),
    number: field(pr(p), 'number'),
    title: prTitle(c),
    assigneeUpdated: field(p, 'assignee', 'login'),
  });
}

export function closedPr(c: Ctx): string {
  const { p } = c;
  return prOrIssueMessage({
    user: senderName(p),
    action: field<boolean>(pr(p), 'merged') ? 'merged' : 'closed without merge',
    url: field(pr(p), 'html_url'),
    number: field(pr(p), 'number'),
    title: prTitle(c),
  });
}

export function lockedOrUnlockedPr({ p }: Ctx): string {
  const link = `[PR #${field(pr(p), 'number')}](${field(pr(p), 'html_url')})`;
  if (field(p, 'action') === 'unlocked') return `${senderName(p)} has unlocked ${link}.`;
  const reason = truthy(pr(p).active_lock_reason) ? pr(p).active_lock_reason : null;
  return `${senderName(p)} has locked ${link} as ${pyStr(reason)} and limited conversation to collaborators.`;
}

export function autoMergePr({ p }: Ctx): string {
  const verb = field(p, 'action') === 'auto_merge_disabled' ? 'disabled' : 'enabled';
  return `${senderName(p)} has ${verb} auto merge for [PR #${field(pr(p), 'number')}](${field(pr(p), 'html_url')}).`;
}

export function readyForReviewPr({ p }: Ctx): string {
  return `**${senderName(p)}** has marked [PR #${field(pr(p), 'number')}](${field(pr(p), 'html_url')}) as ready for review.`;
}

export function review(c: Ctx): string {
  const { p } = c;
  return prOrIssueMessage({
    user: senderName(p),
    action: 'submitted',
    url: field(p, 'review', 'html_url'),
    type: 'PR review',
    title: c.includeTitle ? `for #${field(pr(p), 'number')} ${field(pr(p), 'title')}` : null,
    message: optional<string>(p, 'review', 'body') ?? null,
  });
}

export function reviewComment(c: Ctx): string {
  const { p } = c;
  const action = field<string>(p, 'action');
  return prOrIssueMessage({
    user: senderName(p),
    action,
    url: field(p, 'comment', 'html_url'),
    message: action === 'created' ? field<string>(p, 'comment', 'body') : null,
    type: 'PR review comment',
    title: c.includeTitle ? `on #${field(pr(p), 'number')} ${field(pr(p), 'title')}` : null,
  });
}

export function reviewRequested(c: Ctx): string {
  const { p } = c;
  const reviewer = 'requested_reviewer' in p ? `[${field(p, 'requested_reviewer', 'login')}](${field(p, 'requested_reviewer', 'html_url')})` : `[${field(p, 'requested_team', 'name')}](${field(p, 'requested_team', 'html_url')})`;
  const title = c.includeTitle ? ` ${field(pr(p), 'title')}` : '';
  return `**${senderName(p)}** requested ${reviewer} for a review on [PR #${field(pr(p), 'number')}${title}](${field(pr(p), 'html_url')}).`;
}

export function checkRun({ p }: Ctx): string {
  const run = field<P>(p, 'check_run');
  const sha = field<string>(run, 'head_sha');
  return `Check [${field(run, 'name')}](${field(run, 'html_url')}) ${field(run, 'status')} (${pyStr(field(run, 'conclusion'))}). ([${shortSha(sha)}](${repoUrl(p)}/commit/${sha}))`;
}
