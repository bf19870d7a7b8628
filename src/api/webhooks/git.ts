/**
 * The message texts of the reference's git integrations (zerver/lib/webhooks/git.py), shared by
 * GitHub here as they are by GitHub, GitLab and others there.
 */
export const TOPIC_WITH_BRANCH = (repo: string, branch: string) => `${repo} / ${branch}`;
export const TOPIC_WITH_PR_OR_ISSUE = (repo: string, type: string, id: number, title: string) => `${repo} / ${type} #${id} ${title}`;

const COMMITS_LIMIT = 20;
const COMMITTERS_LIMIT = 3;
// Python's string.punctuation
const PUNCTUATION = new Set('!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~');

export const shortSha = (sha: string) => sha.slice(0, 11);

const quote = (message: string) => `\n~~~ quote\n${message}\n~~~`;

export interface CommitData {
  name: string;
  sha: string;
  url: string;
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

function commitsContent(commits: CommitData[]): string {
  let out = '';
  for (const c of commits.slice(0, COMMITS_LIMIT)) out += `* ${c.message.split('\n')[0]} ([${shortSha(c.sha)}](${c.url}))\n`;
  if (commits.length > COMMITS_LIMIT) out += `[and ${commits.length - COMMITS_LIMIT} more commit(s)]`;
  return out.trimEnd();
}

export function pushCommitsMessage(user: string, compareUrl: string | null, branch: string, commits: CommitData[], opts: { deleted?: boolean; forcePush?: boolean } = {}): string {
  if (commits.length === 0 && opts.deleted) return `${user} [deleted](${compareUrl}) the branch ${branch}.`;
  const verb = opts.forcePush ? 'force pushed' : 'pushed';
  if (commits.length === 0) return `${user} [${verb}](${compareUrl}) the branch ${branch}.`;
  const count = `${commits.length} commit${commits.length > 1 ? 's' : ''}`;
  const pushed = compareUrl ? `[${verb}](${compareUrl}) ${count}` : `${verb} ${count}`;
  const base = `${user} ${pushed} to branch ${branch}.`;
  const items = committers(commits);
  if (items.length === 1 && items[0][0] === user) return `${base}\n\n${commitsContent(commits)}`.trimEnd();
  let details = `${items[0][0]} (${items[0][1]})`;
  for (const [name, n] of items.slice(1, -1)) details += `, ${name} (${n})`;
  if (items.length > 1) details += ` and ${items[items.length - 1][0]} (${items[items.length - 1][1]})`;
  return `${base} Commits by ${details}.\n\n${commitsContent(commits)}`.trimEnd();
}

export function pushTagMessage(user: string, tag: string, action: string): string {
  const message = `${user} ${action} tag ${tag}`;
  return PUNCTUATION.has(tag[tag.length - 1]) ? message : `${message}.`;
}

export interface PrOrIssue {
  user: string;
  action: string;
  url: string;
  number?: number;
  targetBranch?: string | null;
  baseBranch?: string | null;
  message?: string | null;
  assignee?: string | null;
  assigneeUpdated?: string | null;
  type?: string;
  title?: string | null;
}

/** get_pull_request_event_message (and get_issue_event_message, with type "issue"). */
export function prOrIssueMessage(e: PrOrIssue): string {
  const type = e.type ?? 'PR';
  const id = e.number !== undefined ? ` #${e.number}` : '';
  const link = e.title != null ? `[${type}${id} ${e.title}](${e.url})` : `[${type}${id}](${e.url})`;
  let main = e.assigneeUpdated ? `${e.user} ${e.action} ${e.assigneeUpdated} ${e.action === 'unassigned' ? 'from' : 'to'} ${link}` : `${e.user} ${e.action} ${link}`;
  if (e.targetBranch && e.baseBranch) main += ` from \`${e.targetBranch}\` to \`${e.baseBranch}\``;
  if (e.assignee) main += ` (assigned to ${e.assignee})`;
  const punctuation = e.message ? ':' : '.';
  if (e.assignee || (e.targetBranch && e.baseBranch) || e.title == null) main += punctuation;
  else if (!PUNCTUATION.has(e.title[e.title.length - 1])) main += punctuation;
  if (e.message) main += `\n${quote(e.message)}`;
  return main.trimEnd();
}

export function setupMessage(integration: string, user?: string): string {
  return `${integration} webhook has been successfully configured${user ? ` by ${user}` : ''}.`;
}

/** is_branch_name_notifiable: `branches` is a comma-separated list of names. */
export function branchNotifiable(branch: string, branches: string | undefined): boolean {
  return branches === undefined || branches.split(',').map((b) => b.trim()).includes(branch);
}
