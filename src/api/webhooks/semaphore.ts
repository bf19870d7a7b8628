import { shortSha } from './git.js';
import { field, has, int, registerIntegration, str, type WebhookRequest } from './registry.js';
import { firstLine } from './py.js';

/**
 * Semaphore (zerver/webhooks/semaphore): Classic's build and deploy notifications, and 2.0's
 * pipelines for pushes, pull requests and tags, in topic "<project>/<branch>" (the project
 * alone for tags). 2.0 sends no links: for GitHub repositories they are made from its URLs.
 */
const ALL_EVENT_TYPES = ['build', 'tag', 'unknown', 'branch', 'deploy', 'pull_request'];

function classic(p: unknown): [string, string, string, string] {
  const branch = str(p, 'branch_name');
  const project = str(p, 'project_name');
  const result = str(p, 'result');
  const event = str(p, 'event');
  const commitId = str(p, 'commit', 'id');
  const commitUrl = str(p, 'commit', 'url');
  const email = str(p, 'commit', 'author_email');
  const message = firstLine(str(p, 'commit', 'message'));
  const commit = `* **Commit**: [${shortSha(commitId)}: ${message}](${commitUrl})\n* **Author**: ${email}`;
  let content: string;
  if (event === 'build') {
    content = `[Build ${int(p, 'build_number')}](${str(p, 'build_url')}) ${result}:\n${commit}`;
  } else if (event === 'deploy') {
    const build = `[build ${int(p, 'build_number')}](${str(p, 'build_html_url')})`;
    content = `[Deploy ${int(p, 'number')}](${str(p, 'html_url')}) of ${build} ${result}:\n${commit}\n* **Server**: ${str(p, 'server_name')}`;
  } else content = `${event}: ${result}`;
  return [content, project, branch, event];
}

const isGithub = (url: string) => {
  try {
    return new URL(url).hostname === 'github.com';
  } catch {
    return false;
  }
};

function semaphore2(p: unknown): [string, string, string, string] {
  const repo = str(p, 'repository', 'url');
  const project = str(p, 'project', 'name');
  const organization = str(p, 'organization', 'name');
  const author = str(p, 'revision', 'sender', 'login');
  const workflow = `https://${organization}.semaphoreci.com/workflows/${str(p, 'workflow', 'id')}`;
  const head = `[${str(p, 'pipeline', 'name')}](${workflow}) pipeline **${str(p, 'pipeline', 'result')}**`;
  const gh = isGithub(repo);
  const by = gh ? `* **Author**: [${author}](https://github.com/${author})` : `* **Author**: ${author}`;
  const revision = field(p, 'revision');
  const event = str(revision, 'reference_type');
  if (event === 'branch') {
    const sha = str(revision, 'commit_sha');
    const branch = str(revision, 'branch', 'name');
    const message = firstLine(str(revision, 'commit_message'));
    const commit = gh ? `[(${shortSha(sha)})](${repo}/commit/${sha}) ${message}` : `(${shortSha(sha)}) ${message}`;
    return [`${head}:\n* **Commit**: ${commit}\n* **Branch**: ${branch}\n${by}`, project, branch, event];
  }
  if (event === 'pull_request') {
    const pr = field(revision, 'pull_request');
    const branch = str(pr, 'branch_name');
    const title = str(pr, 'name');
    const number = str(pr, 'number');
    const line = gh ? `[${title}](${repo}/pull/${number})` : `${title} (#${number})`;
    return [`${head}:\n* **Pull request**: ${line}\n* **Branch**: ${branch}\n${by}`, project, branch, event];
  }
  if (event === 'tag') {
    const tag = str(revision, 'tag', 'name');
    return [`${head}:\n* **Tag**: ${gh ? `[${tag}](${repo}/tree/${tag})` : tag}\n${by}`, project, '', event];
  }
  return [`${head} for ${event} event`, project, '', event];
}

function handle({ payload: p }: WebhookRequest) {
  const [content, project, branch, event] = has(p, 'event') ? classic(p) : semaphore2(p);
  return [{ topic: branch ? `${project}/${branch}` : project, body: content, eventType: event }];
}

registerIntegration({ name: 'semaphore', displayName: 'Semaphore', webhookName: 'Semaphore', allEventTypes: ALL_EVENT_TYPES, payload: 'body', handle });
