/**
 * The message texts of the reference's git integrations (zerver/lib/webhooks/git.py): push
 * summaries, branch filters, commit lists, pull request and issue messages. GitHub, GitLab, Gitea,
 * Gogs, Bitbucket (Cloud and Server) and Azure DevOps share them, as they do there, so the same
 * event reads the same whichever service sent it.
 */

export const EMPTY_SHA = '0'.repeat(40);
export const COMMITS_LIMIT = 20;
const COMMITTERS_LIMIT = 3;
// Python's string.punctuation: the reference ends a message with a period unless its last word
// already ends with one of these.
const PUNCTUATION = new Set('!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~');

export const endsWithPunctuation = (text: string) => text.length > 0 && PUNCTUATION.has(text[text.length - 1]);

export const topicWithBranch = (repo: string, branch: string) => `${repo} / ${branch}`;
export const topicWithPrOrIssue = (repo: string, type: string, id: number | string, title: string) => `${repo} / ${type} #${id} ${title}`;
export const topicWithRelease = (repo: string, tag: string, title: string) => `${repo} / ${tag} ${title}`;

export const shortSha = (sha: string) => sha.slice(0, 11);

/**
 * CONTENT_MESSAGE_TEMPLATE: quoted text from the payload. The reference always fences it with
 * `~~~`; a line of three or more tildes in the text would close that fence and let the rest of
 * the text out of the quote, so such text gets a longer fence (the reference's own texts never
 * have one, and keep theirs byte for byte).
 */
export function quote(message: string): string {
  const longest = Math.max(2, ...message.split('\n').map((line) => /^~*/.exec(line)![0].length));
  const fence = '~'.repeat(Math.max(3, longest + 1));
  return `\n${fence} quote\n${message}\n${fence}`;
}

export interface CommitData {
  name: string;
  sha: string;
  url: string | null;
  message: string;
}

/** get_all_committers: by commit count, ties by name; past three, the rest as "others". */
function committers(commits: CommitData[]): [string, number][] {
  const counts = new Map<string, number>();
  for (const c of commits) counts.set(c.name, (counts.get(c.name) ?? 0) + 1);
  let items = [...counts.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  if (items.length > COMMITTERS_LIMIT) {
    const others = items.slice(COMMITTERS_LIMIT).reduce((n, [, k]) => n + k, 0);
    items = [...items.slice(0, COMMITTERS_LIMIT), ['others', others]];
  }
  return items;
}

/** get_commits_content: one line per commit (its first line), at most twenty. */
export function commitsContent(commits: CommitData[], isTruncated = false): string {
  let out = '';
  for (const c of commits.slice(0, COMMITS_LIMIT)) out += `* ${c.message.split('\n')[0]} ([${shortSha(c.sha)}](${c.url ?? 'None'}))\n`;
  if (commits.length > COMMITS_LIMIT) out += `[and ${commits.length - COMMITS_LIMIT} more commit(s)]`;
  else if (isTruncated) out += '[and more commit(s)]';
  return out.trimEnd();
}

export interface Push {
  user: string;
  compareUrl: string | null;
  branch: string;
  commits: CommitData[];
  isTruncated?: boolean;
  deleted?: boolean;
  forcePush?: boolean;
  /** With both, the branch is named with its repository (GitHub's include_repository_name). */
  repositoryName?: string | null;
  repositoryUrl?: string | null;
}

/** get_push_commits_event_message */
export function pushCommitsMessage(p: Push): string {
  const { user, compareUrl, branch, commits } = p;
  if (commits.length === 0 && p.deleted) return `${user} [deleted](${compareUrl}) the branch ${branch}.`;
  const verb = p.forcePush ? 'force pushed' : 'pushed';
  if (commits.length === 0) return compareUrl ? `${user} [${verb}](${compareUrl}) the branch ${branch}.` : `${user} ${verb} the branch ${branch}.`;
  const count = `${commits.length} commit${commits.length > 1 ? 's' : ''}`;
  const pushed = compareUrl ? `[${verb}](${compareUrl}) ${count}` : `${verb} ${count}`;
  const where = p.repositoryName && p.repositoryUrl ? `${branch} of [${p.repositoryName}](${p.repositoryUrl})` : branch;
  const base = `${user} ${pushed} to branch ${where}.`;
  const items = committers(commits);
  const list = commitsContent(commits, p.isTruncated);
  if (items.length === 1 && items[0][0] === user) return `${base}\n\n${list}`.trimEnd();
  let details = `${items[0][0]} (${items[0][1]})`;
  for (const [name, n] of items.slice(1, -1)) details += `, ${name} (${n})`;
  if (items.length > 1) details += ` and ${items[items.length - 1][0]} (${items[items.length - 1][1]})`;
  return `${base} Commits by ${details}.\n\n${list}`.trimEnd();
}

export const forcePushMessage = (user: string, url: string, branch: string, head: string) => `${user} [force pushed](${url}) to branch ${branch}. Head is now ${head}.`;
export const createBranchMessage = (user: string, url: string | null, branch: string) => (url === null ? `${user} created ${branch} branch.` : `${user} created [${branch}](${url}) branch.`);
export const removeBranchMessage = (user: string, branch: string) => `${user} deleted branch ${branch}.`;

/** get_push_tag_event_message */
export function pushTagMessage(user: string, tag: string, action = 'pushed', tagUrl?: string | null): string {
  const message = `${user} ${action} tag ${tagUrl ? `[${tag}](${tagUrl})` : tag}`;
  return endsWithPunctuation(tag) ? message : `${message}.`;
}

/** get_commits_comment_action_message: note the single newline before the quote. */
export function commitsCommentMessage(user: string, action: string, commitUrl: string, sha: string, message?: string | null): string {
  const content = `${user} ${action} on [${shortSha(sha)}](${commitUrl})${message ? ':' : '.'}`;
  return message ? content + quote(message) : content;
}

export const releaseMessage = (user: string, action: string, tag: string, name: string, url: string) => `${user} ${action} release [${name}](${url}) for tag ${tag}.`;
export const releaseMessageWithoutUser = (name: string, url: string | null, tag: string, action: string) =>
  url === null ? `Release ${name} for tag ${tag} was ${action}.` : `Release [${name}](${url}) for tag ${tag} was ${action}.`;

/** get_assignee_string: "a", "a and b", "a, b and c". */
export function assigneeString(names: string[]): string {
  return names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}

export interface PrOrIssue {
  user: string;
  action: string;
  url: string;
  number?: number | null;
  targetBranch?: string | null;
  baseBranch?: string | null;
  message?: string | null;
  assignee?: string | null;
  assignees?: string[] | null;
  /** Who was assigned or unassigned, for those two actions. */
  assigneeUpdated?: string | null;
  reviewer?: string | null;
  type?: string;
  title?: string | null;
}

const ACTION_TEXTS: Record<string, string> = { approval: 'added their approval for', unapproval: 'removed their approval for' };

/** get_pull_request_event_message (and get_issue_event_message, with type "issue"). */
export function prOrIssueMessage(e: PrOrIssue): string {
  const type = e.type ?? 'PR';
  const id = e.number != null ? ` #${e.number}` : '';
  const title = e.title != null ? ` ${e.title}` : '';
  const updated = e.assigneeUpdated ?? 'None';
  const who = e.action === 'assigned' ? ` ${updated} to` : e.action === 'unassigned' ? ` ${updated} from` : '';
  let main = `${e.user} ${ACTION_TEXTS[e.action] ?? e.action}${who} [${type}${id}${title}](${e.url})`;
  const branches = Boolean(e.targetBranch && e.baseBranch);
  if (branches) main += ` from \`${e.targetBranch}\` to \`${e.baseBranch}\``;
  const assignees = e.assignees && e.assignees.length > 0 ? assigneeString(e.assignees) : null;
  if (assignees || e.assignee) main += ` (assigned to ${assignees ?? e.assignee})`;
  else if (e.reviewer) main += ` (assigned reviewers: ${e.reviewer})`;
  const punctuation = e.message ? ':' : '.';
  if (assignees || e.assignee || branches || e.title == null || !endsWithPunctuation(e.title)) main += punctuation;
  if (e.message) main += `\n${quote(e.message)}`;
  return main.trimEnd();
}

export const issueMessage = (e: Omit<PrOrIssue, 'type' | 'reviewer'>) => prOrIssueMessage({ ...e, type: 'issue' });

export interface LabelOrMilestone {
  user: string;
  userUrl: string;
  /** "added" or "removed". */
  action: string;
  url: string;
  number: number;
  title?: string | null;
}

export function issueLabeledMessage(e: LabelOrMilestone & { label: string }): string {
  const preposition = e.action === 'added' ? 'to' : 'from';
  const title = e.title != null ? ` ${e.title}` : '';
  return `[${e.user}](${e.userUrl}) ${e.action} the ${e.label} label ${preposition} [Issue #${e.number}${title}](${e.url}).`;
}

export function issueMilestonedMessage(e: LabelOrMilestone & { milestone: string; milestoneUrl: string }): string {
  const preposition = e.action === 'added' ? 'to' : 'from';
  const title = e.title != null ? ` ${e.title}` : '';
  return `[${e.user}](${e.userUrl}) ${e.action} milestone [${e.milestone}](${e.milestoneUrl}) ${preposition} [issue #${e.number}${title}](${e.url}).`;
}

export function setupMessage(integration: string, user?: string | null): string {
  return `${integration} webhook has been successfully configured${user ? ` by ${user}` : ''}.`;
}

/** is_branch_name_notifiable: `branches` is a comma-separated list of names. */
export function branchNotifiable(branch: string, branches: string | undefined): boolean {
  return branches === undefined || branches.split(',').map((b) => b.trim()).includes(branch);
}
