import { ApiError } from '../../lib/errors.js';
import { shortSha } from './git.js';
import { field, has, int, optional, registerIntegration, str, type WebhookRequest } from './registry.js';

/**
 * CircleCI (zerver/webhooks/circleci): completed jobs and workflows of GitHub, Bitbucket and
 * GitLab projects, in the project's topic; the webhook's test ping in "Test event".
 */
const STATUS: Record<string, string> = {
  success: 'has succeeded',
  failed: 'has failed',
  canceled: 'was canceled',
  unauthorized: 'was unauthorized',
  error: 'had an error',
};

function commitDetails(p: unknown): string {
  const pipeline = field(p, 'pipeline');
  let details: string;
  let link: string;
  let author: string;
  let branch: string | null;
  if (has(pipeline, 'vcs')) {
    const vcs = field(pipeline, 'vcs');
    const revision = str(vcs, 'revision');
    const id = shortSha(revision);
    const repo = str(vcs, 'target_repository_url');
    link = str(vcs, 'provider_name') === 'github' ? `${repo}/commit/${revision}` : `${repo}/commits/${revision}`;
    branch = optional<string>(vcs, 'branch') ?? null;
    const subject = optional<string>(vcs, 'commit', 'subject');
    if (!subject) {
      // Manually triggered pipelines (GitHub and Bitbucket): no commit subject.
      if (!branch) return `\nTriggered on the latest tag on [${id}](${link}).\n`;
      return `\nTriggered on \`${branch}\`'s HEAD on [${id}](${link}).\n`;
    }
    details = `${id}: ${subject}`;
    author = str(vcs, 'commit', 'author', 'name');
  } else {
    const gitlab = field(pipeline, 'trigger_parameters', 'gitlab');
    const sha = str(gitlab, 'checkout_sha');
    details = `${shortSha(sha)}: ${str(gitlab, 'commit_title')}`;
    author = str(gitlab, 'commit_author_name');
    link = `${str(gitlab, 'web_url')}/-/commit/${sha}`;
    branch = str(gitlab, 'branch');
  }
  return `\nTriggered on [\`${details}\`](${link}) on branch \`${branch}\` by ${author}.\n`;
}

function body(p: unknown, type: string): string {
  const number = int(p, 'pipeline', 'number');
  const details = commitDetails(p);
  if (type === 'job-completed') {
    return `\nJob \`${str(p, 'job', 'name')}\` within Pipeline #${number} ${STATUS[str(p, 'job', 'status')] ?? 'None'}.\n${details}\n`;
  }
  if (type !== 'workflow-completed') throw new ApiError(`request['type'] is not one of the allowed values`);
  const workflow = field(p, 'workflow');
  return `\nWorkflow [\`${str(workflow, 'name')}\`](${str(workflow, 'url')}) within Pipeline #${number} ${STATUS[str(workflow, 'status')] ?? 'None'}.\n${details}\n`;
}

function handle({ payload: p }: WebhookRequest) {
  const type = str(p, 'type');
  if (type === 'ping') return [{ topic: 'Test event', body: `Webhook '${str(p, 'webhook', 'name')}' test event successful.`, eventType: type }];
  const topic = str(p, 'project', 'name');
  const text = body(p, type);
  const pipeline = field(p, 'pipeline');
  if (has(pipeline, 'trigger_parameters') && str(pipeline, 'trigger', 'type') !== 'gitlab') {
    throw new ApiError("Projects using this version control system provider aren't supported");
  }
  return [{ topic, body: text, eventType: type }];
}

registerIntegration({ name: 'circleci', displayName: 'CircleCI', webhookName: 'CircleCI', allEventTypes: ['ping', 'job-completed', 'workflow-completed'], payload: 'body', handle });
