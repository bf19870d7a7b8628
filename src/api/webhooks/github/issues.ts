import { field, optional, unsupportedEvent } from '../registry.js';
import { commitsCommentMessage, issueLabeledMessage, issueMessage, issueMilestonedMessage, prOrIssueMessage, quote } from '../git.js';
import { truthy } from '../py.js';
import { senderName, senderUrl, type Ctx, type P } from './context.js';

/** Issues, comments (on issues, pull requests, commits, discussions) and discussions. */

const issue = (p: P) => field<P>(p, 'issue');
const issueTitle = ({ p, includeTitle }: Ctx) => (includeTitle ? field<string>(p, 'issue', 'title') : null);

/** A comment on an issue is one on a pull request when the issue carries one. */
export const isPullRequestComment = (p: P) => 'pull_request' in issue(p);

/** get_comment_action */
function commentAction(p: P): string {
  const action = field<string>(p, 'action');
  return `${action === 'created' ? '[commented]' : `${action} a [comment]`}(${field(p, 'comment', 'html_url')}) on`;
}

export function issueEvent(c: Ctx): string {
  const { p } = c;
  const action = field<string>(p, 'action');
  return issueMessage({
    user: senderName(p),
    action,
    url: field(issue(p), 'html_url'),
    number: field(issue(p), 'number'),
    message: action === 'assigned' || action === 'unassigned' ? null : (optional<string>(issue(p), 'body') ?? null),
    title: issueTitle(c),
    assigneeUpdated: 'assignee' in p ? field(p, 'assignee', 'login') : null,
  });
}

export function issueComment(c: Ctx): string {
  const { p } = c;
  return prOrIssueMessage({
    user: senderName(p),
    action: commentAction(p),
    url: field(issue(p), 'html_url'),
    number: field(issue(p), 'number'),
    message: field(p, 'comment', 'body'),
    title: issueTitle(c),
    type: isPullRequestComment(p) ? 'PR' : 'issue',
  });
}

/** Who added or removed a label or milestone, on which issue. */
function labelOrMilestone(c: Ctx, addedAction: string) {
  const { p } = c;
  return {
    user: senderName(p),
    userUrl: senderUrl(p),
    action: field(p, 'action') === addedAction ? 'added' : 'removed',
    url: field<string>(issue(p), 'html_url'),
    number: field<number>(issue(p), 'number'),
    title: issueTitle(c),
  };
}

export const issueLabeledOrUnlabeled = (c: Ctx) => issueLabeledMessage({ ...labelOrMilestone(c, 'labeled'), label: field(c.p, 'label', 'name') });

export const issueMilestonedOrDemilestoned = (c: Ctx) =>
  issueMilestonedMessage({ ...labelOrMilestone(c, 'milestoned'), milestone: field(c.p, 'milestone', 'title'), milestoneUrl: field(c.p, 'milestone', 'html_url') });

export function issueTransferred({ p }: Ctx): string {
  const i = issue(p);
  return `${senderName(p)} transferred [issue #${field(i, 'number')} ${field(i, 'title')}](${field(i, 'html_url')}) to [${field(p, 'changes', 'new_repository', 'full_name')}/#${field(p, 'changes', 'new_issue', 'number')}](${field(p, 'changes', 'new_issue', 'html_url')}).`;
}

export function issueOpenedViaTransfer({ p }: Ctx): string {
  const i = issue(p);
  return `[Issue #${field(i, 'number')} ${field(i, 'title')}](${field(i, 'html_url')}) was transferred from [${field(p, 'changes', 'old_repository', 'full_name')}#${field(p, 'changes', 'old_issue', 'number')}](${field(p, 'changes', 'old_issue', 'html_url')}).`;
}

export function commitComment({ p }: Ctx): string {
  const url = field<string>(p, 'comment', 'html_url');
  return commitsCommentMessage(senderName(p), `[commented](${url})`, url.split('#')[0], field(p, 'comment', 'commit_id'), field(p, 'comment', 'body'));
}

export function discussionComment(c: Ctx): string {
  const { p } = c;
  return prOrIssueMessage({
    user: senderName(p),
    action: commentAction(p),
    url: field(p, 'discussion', 'html_url'),
    number: field(p, 'discussion', 'number'),
    message: field(p, 'comment', 'body'),
    title: c.includeTitle ? field(p, 'discussion', 'title') : null,
    type: 'discussion',
  });
}

/**
 * Discussions. 10.2 rendered every action as "created"; the reference since (zulip/zulip#32650)
 * has a text per action, which this follows: its "created" text is 10.2's.
 */
export function discussion(c: Ctx): string {
  const { p } = c;
  const d = field<P>(p, 'discussion');
  const action = field<string>(p, 'action');
  const who = senderName(p);
  const n = field<number>(d, 'number');
  const url = field<string>(d, 'html_url');
  const title = c.includeTitle ? ` ${field(d, 'title')}` : '';
  const link = `[discussion #${n}${title}](${url})`;
  // answered and unanswered name the comment marked (or no longer marked) as the answer.
  const answer = () => field<P>(p, action === 'unanswered' ? 'old_answer' : 'answer');
  const answerLink = () => `[comment #${field(answer(), 'id')}](${field(answer(), 'html_url')})`;
  switch (action) {
    case 'created':
      return `${who} created [discussion #${n}](${url}) in ${field(d, 'category', 'name')}:\n${quote(`### ${field(d, 'title')}\n${field(d, 'body')}`)}`;
    case 'unlocked':
    case 'pinned':
    case 'unpinned':
    case 'reopened':
      return `${who} ${action} ${link}.`;
    case 'deleted':
      return `${who} ${action} discussion #${n}${title}.`;
    case 'closed':
      return `${who} ${action} ${link} as ${field(d, 'state_reason')}.`;
    case 'locked': {
      // As in the reference, the title (when the topic does not carry it) lands in the link too.
      const reason = truthy(d.active_lock_reason) ? ` as ${d.active_lock_reason}` : '';
      return `${who} ${action} [discussion #${n}${title}](${url}${title})${reason}.`;
    }
    case 'labeled':
      return `${who} added the ${field(p, 'label', 'name')} label to ${link}.`;
    case 'unlabeled':
      return `${who} removed the ${field(p, 'label', 'name')} label from ${link}.`;
    case 'category_changed':
      return `${who} changed the category of ${link} from ${field(p, 'changes', 'category', 'from', 'name')} to ${field(d, 'category', 'name')}.`;
    case 'transferred':
      return `${who} ${action} discussion #${n}${title} from ${field(p, 'repository', 'name')} to ${field(p, 'changes', 'new_repository', 'name')} as [discussion #${field(p, 'changes', 'new_discussion', 'number')}](${url}).`;
    case 'answered':
      return `${who} marked ${answerLink()} as the answer:\n${quote(field(answer(), 'body'))}`;
    case 'unanswered':
      return `${who} marked ${answerLink()} as not the answer.`;
    case 'edited':
      if ('body' in field<P>(p, 'changes')) return `${who} edited ${link}:\n${quote(field(d, 'body'))}`;
      return `${who} edited the title of ${link}:\n${quote(`### ${field(d, 'title')}`)}`;
  }
  throw unsupportedEvent('GitHub', `discussion:${action}`);
}
