import { log } from '../../../lib/log.js';
import { field, optional } from '../registry.js';
import { pushCommitsMessage, pushTagMessage, quote, releaseMessage, setupMessage, shortSha, type CommitData } from '../git.js';
import { pyStr, truthy } from '../py.js';
import { branchFromRef, repoFullName, repoUrl, senderName, senderUrl, tagFromRef, type Ctx, type P } from './context.js';

/** Pushes and the repository-, organization- and sponsorship-level events. */

export function pushCommits({ p, includeRepositoryName }: Ctx): string {
  const commits: CommitData[] = field<P[]>(p, 'commits').map((c) => ({
    name: truthy(optional(c, 'author', 'username')) ? field<string>(c, 'author', 'username') : field<string>(c, 'author', 'name'),
    sha: field(c, 'id'),
    url: field(c, 'url'),
    message: field(c, 'message'),
  }));
  return pushCommitsMessage({
    user: senderName(p),
    compareUrl: field(p, 'compare'),
    branch: branchFromRef(field(p, 'ref')),
    commits,
    deleted: field(p, 'deleted'),
    forcePush: field(p, 'forced'),
    repositoryName: includeRepositoryName ? repoFullName(p) : null,
    repositoryUrl: includeRepositoryName ? repoUrl(p) : null,
  });
}

export const pushTags = ({ p }: Ctx) => pushTagMessage(senderName(p), tagFromRef(field(p, 'ref')), field(p, 'created') ? 'pushed' : 'removed');

export const createOrDelete = (action: string) => ({ p }: Ctx) => `${senderName(p)} ${action} ${field(p, 'ref_type')} ${field(p, 'ref')}.`.trimEnd();

export const fork = ({ p }: Ctx) => `${senderName(p)} forked [${field(p, 'forkee', 'name')}](${field(p, 'forkee', 'html_url')}).`;
export const deployment = ({ p }: Ctx) => `${senderName(p)} created new deployment.`;
export const deploymentStatus = ({ p }: Ctx) => `Deployment changed status to ${field(p, 'deployment_status', 'state')}.`;
export const publicRepo = ({ p }: Ctx) => `${senderName(p)} made the repository [${repoFullName(p)}](${repoUrl(p)}) public.`;
export const watch = ({ p }: Ctx) => `${senderName(p)} starred the repository [${repoFullName(p)}](${repoUrl(p)}).`;
export const repository = ({ p }: Ctx) => `${senderName(p)} ${field(p, 'action')} the repository [${repoFullName(p)}](${repoUrl(p)}).`;
export const teamAdd = ({ p }: Ctx) => `The repository [${repoFullName(p)}](${repoUrl(p)}) was added to team ${field(p, 'team', 'name')}.`;
export const ping = ({ p }: Ctx) => setupMessage('GitHub', senderName(p));

export function star({ p }: Ctx): string {
  const action = field(p, 'action') === 'created' ? 'starred' : 'unstarred';
  return `[${senderName(p)}](${senderUrl(p)}) ${action} the repository [${repoFullName(p)}](${repoUrl(p)}).`;
}

export function member({ p }: Ctx): string {
  return `${senderName(p)} ${field(p, 'action')} [${field(p, 'member', 'login')}](${field(p, 'member', 'html_url')}) to [${field(p, 'repository', 'name')}](${repoUrl(p)}).`;
}

export function membership({ p }: Ctx): string {
  const action = field<string>(p, 'action');
  const preposition = action === 'removed' ? 'from' : 'to';
  return `${senderName(p)} ${action} [${field(p, 'member', 'login')}](${field(p, 'member', 'html_url')}) ${preposition} the ${field(p, 'team', 'name')} team.`;
}

export function wikiPages({ p }: Ctx): string {
  const pages = field<P[]>(p, 'pages').map((page) => `* ${field(page, 'action')} [${field(page, 'title')}](${field(page, 'html_url')})\n`);
  return `${senderName(p)}:\n${pages.join('').trimEnd()}`;
}

export function team({ p }: Ctx): string {
  const changes = field<P>(p, 'changes');
  if ('description' in changes) return `**${senderName(p)}** changed the team description to:\n${quote(field(p, 'team', 'description'))}`;
  if ('name' in changes) return `Team \`${field(changes, 'name', 'from')}\` was renamed to \`${field(p, 'team', 'name')}\`.`;
  if ('privacy' in changes) return `Team visibility changed to \`${field(p, 'team', 'privacy')}\``;
  const keys = Object.keys(changes).sort().join('/');
  // The reference logs these as unsupported and still tells the channel something changed.
  log.warn({ webhook: 'GitHub', event: `team/edited (changes: ${keys})` }, 'unsupported webhook event');
  return `Team has changes to \`${keys}\` data.`;
}

export function release({ p }: Ctx): string {
  const r = field<P>(p, 'release');
  // Not every release has a name; the tag names it then.
  const name = truthy(r.name) ? field<string>(r, 'name') : field<string>(r, 'tag_name');
  return releaseMessage(senderName(p), field(p, 'action'), field(r, 'tag_name'), name, field(r, 'html_url'));
}

const PAGE_BUILD_STATES: Record<string, string> = { null: 'has yet to be built', building: 'is being built', errored: 'has failed: {}', built: 'has finished building' };

export function pageBuild({ p }: Ctx): string {
  const build = field<P>(p, 'build');
  const status = field<string>(build, 'status');
  let action = PAGE_BUILD_STATES[status] ?? `is ${status}`;
  if (truthy(field(build, 'error', 'message'))) action = action.replace('{}', quote(field(build, 'error', 'message')));
  return `GitHub Pages build, triggered by ${field(build, 'pusher', 'login')}, ${action}.`;
}

export function status({ p }: Ctx): string {
  const state = field<string>(p, 'state');
  const shown = truthy(p.target_url) ? `[${state}](${p.target_url})` : state;
  return `[${shortSha(field(p, 'sha'))}](${field(p, 'commit', 'html_url')}) changed its status to ${shown}.`;
}

// GitHub Sponsors (the githubsponsors URL).
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const tier = (p: P) => field<string>(p, 'sponsorship', 'tier', 'name');
const priorTier = (p: P) => field<string>(p, 'changes', 'tier', 'from', 'name');

/** The effective date as the reference prints it ("%B %d, %Y"): January 05, 2020. */
function effectiveDate(p: P): string {
  const [y, m, d] = field<string>(p, 'effective_date').slice(0, 10).split('-');
  return `${MONTHS[Number(m) - 1]} ${d} ${y}`.replace(/ (\d+)$/, ', $1');
}

export const sponsorCancelled = ({ p }: Ctx) => `${senderName(p)} cancelled their ${tier(p)} subscription.`;
export const sponsorCreated = ({ p }: Ctx) => `${senderName(p)} subscribed for ${tier(p)}.`;
export const sponsorEdited = ({ p }: Ctx) =>
  `${senderName(p)} changed who can see their sponsorship from ${pyStr(field(p, 'changes', 'privacy_level', 'from'))} to ${pyStr(field(p, 'sponsorship', 'privacy_level'))}.`;
export const sponsorPendingCancellation = ({ p }: Ctx) => `${senderName(p)}'s ${tier(p)} subscription will be cancelled on ${effectiveDate(p)}.`;
export const sponsorPendingTierChange = ({ p }: Ctx) => `${senderName(p)}'s subscription will change from ${priorTier(p)} to ${tier(p)} on ${effectiveDate(p)}.`;
export const sponsorTierChanged = ({ p }: Ctx) => `${senderName(p)} changed their subscription from ${priorTier(p)} to ${tier(p)}.`;
