import type { RealmState } from '../../model/realm-state.js';
import { anomalousPayload, field, has, optional, registerIntegration, str, unsupportedEvent, type WebhookRequest } from './registry.js';
import { PY_PUNCTUATION, truthy } from './py.js';

/**
 * Jira (zerver/webhooks/jira): issues created, updated (assignee, status, comments, changelog)
 * and deleted, and the newer comment events, in topic "<key>: <summary>". Jira's own markup in
 * comments is turned into Markdown; assignees who are users here are named by their full name.
 */
type P = Record<string, any>;

const IGNORED_EVENTS = ['attachment_created', 'issuelink_created', 'issuelink_deleted', 'jira:version_released', 'jira:worklog_updated', 'sprint_closed', 'sprint_started', 'worklog_created', 'worklog_updated'];

/** The reference's get_in: a path's value, or the default when any step is missing. */
function getIn(p: unknown, keys: string[], fallback: unknown = ''): unknown {
  let node: any = p;
  for (const key of keys) {
    if (node === null || typeof node !== 'object' || Array.isArray(node) || !Object.hasOwn(node, key)) return fallback;
    node = node[key];
  }
  return node;
}

function getInStr(p: unknown, keys: string[], fallback = ''): string {
  const v = getIn(p, keys, fallback);
  if (typeof v !== 'string') return str({ v }, 'v');
  return v;
}

/** guess_zulip_user_from_jira: an active user by full name, or whose email starts with the name. */
function guessUser(realm: RealmState, name: string) {
  const lower = name.toLowerCase();
  return [...realm.activeUsers()].filter((u) => !u.isSystemBot && (u.fullName.toLowerCase() === lower || u.email.toLowerCase().startsWith(lower))).sort((a, b) => a.id - b.id)[0];
}

function convertMarkup(text: string, realm: RealmState): string {
  let content = text.replace(/\*([^*]+)\*/g, '**$1**');
  content = content.replace(/\{\{([^*]+?)\}\}/g, '`$1`');
  content = content.replace(/bq\. (.*)/g, '> $1');
  content = content.replace(/\{quote\}([\s\S]*?)\{quote\}/g, '~~~ quote\n$1\n~~~');
  content = content.replace(/\{noformat\}([\s\S]*?)\{noformat\}/g, '~~~\n$1\n~~~');
  content = content.replace(/\{code[^\n]*\}([\s\S]*?)\{code\}/g, '~~~\n$1\n~~~');
  content = content.replace(/\[([^|~]+?)\]/g, '[$1]($1)');
  content = content.replace(/\[(?:([^|~]+)\|)([^\]]*)\]/g, '[$1]($2)');
  for (const [, username] of [...content.matchAll(/\[~(.*?)\]/g)]) {
    const user = guessUser(realm, username);
    content = content.split(`[~${username}]`).join(`**${user ? user.fullName : username}**`);
  }
  return content;
}

function issueId(p: P): string {
  // Some old Jira versions post comment events without the issue: its number is in the comment's URL.
  if (!has(p, 'issue')) return str(p, 'comment', 'self').split('/').at(-3) ?? '';
  return getInStr(p, ['issue', 'key']);
}

function issueTitle(p: P): string {
  if (!has(p, 'issue')) return 'Upgrade Jira to get the issue title here.';
  return getInStr(p, ['issue', 'fields', 'summary']);
}

function issueString(p: P, id: string = issueId(p), withTitle = false): string {
  const text = withTitle ? `${id}: ${issueTitle(p)}` : id;
  const base = /(.*)\/rest\/api\/.*/.exec(getInStr(p, ['issue', 'self']));
  return base ? `[${text}](${base[1]}/browse/${id})` : text;
}

const author = (p: P) => getInStr(p, ['user', 'displayName']);

function assigneeMention(realm: RealmState, email: string): string {
  if (email === '') return '';
  const user = realm.userByEmail(email.trim());
  return `**${user && !user.isSystemBot ? user.fullName : email}**`;
}

function subEvent(p: P): string {
  const sub = str({ v: optional(p, 'issue_event_type_name') ?? '' }, 'v');
  if (sub === '') {
    if (truthy(optional(p, 'comment'))) return 'issue_commented';
    if (truthy(optional(p, 'transition'))) return 'issue_transited';
  }
  return sub;
}

const changeInfo = (field: string | null, from: string | null, to: string | null) => `* Changed ${field ?? 'None'}${from ? ` from **${from}**` : ''}${to ? ` to ${to}\n` : ''}`;

function updated(p: P, realm: RealmState): string {
  const issue = issueString(p, getInStr(p, ['issue', 'key']), true);
  const mention = assigneeMention(realm, getInStr(p, ['issue', 'fields', 'assignee', 'emailAddress'], ''));
  const blurb = mention ? ` (assigned to ${mention})` : '';
  const sub = subEvent(p);
  if (sub.includes('comment')) {
    const verb = sub === 'issue_commented' ? 'commented on' : sub === 'issue_comment_edited' ? 'edited a comment on' : 'deleted a comment from';
    const by = optional(p, 'webhookEvent') === 'comment_created' ? str(p, 'comment', 'author', 'displayName') : author(p);
    const content = `${by} ${verb} ${issue}${blurb}`;
    const comment = getInStr(p, ['comment', 'body']);
    return comment ? `${content}:\n\n\`\`\` quote\n${convertMarkup(comment, realm)}\n\`\`\`` : `${content}.`;
  }
  let content = `${author(p)} updated ${issue}${blurb}:\n\n`;
  const changelog = optional(p, 'changelog');
  if (truthy(changelog)) {
    for (const item of field<P[]>(changelog, 'items')) {
      const name = optional<string>(item, 'field') ?? null;
      const target = name === 'assignee' && mention ? mention : `**${optional<string>(item, 'toString') ?? 'None'}**`;
      content += changeInfo(name, optional<string>(item, 'fromString') ?? null, target);
    }
  } else if (sub === 'issue_transited') {
    content += changeInfo('status', getInStr(p, ['transition', 'from_status']), `**${getInStr(p, ['transition', 'to_status'])}**`);
  }
  return content;
}

function created(p: P): string {
  return `${author(p)} created ${issueString(p, undefined, true)}:

* **Priority**: ${getInStr(p, ['issue', 'fields', 'priority', 'name'])}
* **Assignee**: ${getInStr(p, ['issue', 'fields', 'assignee', 'displayName'], 'no one')}`;
}

function deleted(p: P): string {
  const title = issueTitle(p);
  return `${author(p)} deleted ${issueString(p, undefined, true)}${PY_PUNCTUATION.has(title.at(-1) ?? '') ? '' : '.'}`;
}

/** Jira escapes `!` in newer comments with a backslash. */
const comment = (p: P, verb: string, wrap = (s: string) => s) =>
  `${str(p, 'comment', 'author', 'displayName')} ${verb} ${issueString(p, undefined, true)}\n\`\`\` quote\n${wrap(str(p, 'comment', 'body').replaceAll('\\!', '!'))}\n\`\`\`\n`;

const CONTENT: Record<string, (p: P, realm: RealmState) => string> = {
  'jira:issue_created': created,
  'jira:issue_deleted': deleted,
  'jira:issue_updated': updated,
  comment_created: (p) => comment(p, 'commented on'),
  comment_updated: (p) => comment(p, 'updated their comment on'),
  comment_deleted: (p) => comment(p, 'deleted their comment on', (s) => `~~${s}~~`),
};

function handle({ payload, realm }: WebhookRequest) {
  const p = payload as P;
  let event = optional<string>(p, 'webhookEvent') ?? null;
  if (event !== null && typeof event !== 'string') event = str(p, 'webhookEvent');
  if (event === null && truthy(optional(p, 'transition'))) event = 'jira:issue_updated';
  if (event !== null && IGNORED_EVENTS.includes(event)) return [];
  if (event === null) throw anomalousPayload('Jira');
  const content = CONTENT[event];
  if (!content) throw unsupportedEvent('Jira', event);
  const topic = `${issueId(p)}: ${issueTitle(p)}`;
  // Jira escapes the URL twice.
  return [{ topic, body: content(p, realm), eventType: event, unquoteUrlParameters: true }];
}

registerIntegration({ name: 'jira', displayName: 'Jira', webhookName: 'Jira', allEventTypes: Object.keys(CONTENT), payload: 'body', handle });
