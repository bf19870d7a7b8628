import { auditLog } from '../lib/log.js';
import type { Reply } from './operation.js';

/**
 * Audit lines: what an operator needs to reconstruct who did what to accounts, roles,
 * invitations, exports and the organization's settings, and who logged in or failed to.
 * One table, read by the dispatcher after each request (host/dispatch.ts): an operation listed
 * here writes a line when it succeeds, and a `failures` one also when it is refused. Fields are
 * chosen per operation and never hold a secret (no passwords, keys, tokens, invitation links):
 * the names of changed settings rather than their values, except roles.
 */
type Params = Record<string, unknown>;

interface Audited {
  event: string;
  /** Also write a line when the operation is refused (failed logins). */
  failures?: boolean;
  fields?(params: Params, path: Record<string, string>): Params;
}

const target = (_p: Params, path: Record<string, string>) => ({ target: path.user_id ?? path.user_id_or_email ?? path.bot_id });
const changed = (p: Params) => ({ changed: Object.keys(p).filter((k) => !k.startsWith('__')).sort() });

const AUDITED: Record<string, Audited> = {
  'server.fetchApiKey': { event: 'login', failures: true, fields: (p) => ({ username: p.username }) },
  'users.create': { event: 'account.create', fields: (p) => ({ email: p.email }) },
  'users.update': { event: 'account.update', fields: (p, path) => ({ ...target(p, path), ...changed(p), ...(p.role !== undefined ? { role: p.role } : {}) }) },
  'users.deactivate': { event: 'account.deactivate', fields: target },
  'users.deactivateOwn': { event: 'account.deactivate_own' },
  'users.reactivate': { event: 'account.reactivate', fields: target },
  'users.regenerateApiKey': { event: 'account.api_key_regenerated' },
  'settings.update': { event: 'account.settings', failures: true, fields: (p) => ({ ...changed(p), password: p.new_password !== undefined }) },
  'bots.create': { event: 'bot.create', fields: (p) => ({ short_name: p.short_name, bot_type: p.bot_type }) },
  'bots.update': { event: 'bot.update', fields: (p, path) => ({ ...target(p, path), ...changed(p) }) },
  'bots.deactivate': { event: 'bot.deactivate', fields: target },
  'bots.regenerateApiKey': { event: 'bot.api_key_regenerated', fields: target },
  'invites.create': { event: 'invitation.create', fields: (p) => ({ invitee_emails: p.invitee_emails, invite_as: p.invite_as }) },
  'invites.createMultiuse': { event: 'invitation.create_link', fields: (p) => ({ invite_as: p.invite_as }) },
  'invites.editMultiuse': { event: 'invitation.edit_link', fields: (_p, path) => ({ invite_id: path.invite_id }) },
  'invites.revoke': { event: 'invitation.revoke', fields: (_p, path) => ({ invite_id: path.invite_id }) },
  'invites.revokeMultiuse': { event: 'invitation.revoke_link', fields: (_p, path) => ({ invite_id: path.invite_id }) },
  'invites.resend': { event: 'invitation.resend', fields: (_p, path) => ({ invite_id: path.invite_id }) },
  'invites.join': { event: 'account.signup', fields: (p) => ({ email: p.email }) },
  'exports.create': { event: 'export.create', fields: (p) => ({ export_type: p.export_type ?? 1 }) },
  'exports.remove': { event: 'export.delete', fields: (_p, path) => ({ export_id: path.export_id }) },
  'realm.update': { event: 'realm.settings', fields: changed },
  'userDefaults.update': { event: 'realm.user_defaults', fields: changed },
  'realmDomains.add': { event: 'realm.domains', fields: (p) => ({ add: p.domain }) },
  'realmDomains.change': { event: 'realm.domains', fields: (_p, path) => ({ change: path.domain }) },
  'realmDomains.remove': { event: 'realm.domains', fields: (_p, path) => ({ remove: path.domain }) },
  'realmImages.setIcon': { event: 'realm.icon' },
  'realmImages.removeIcon': { event: 'realm.icon' },
  'realmImages.setLogo': { event: 'realm.logo' },
  'realmImages.removeLogo': { event: 'realm.logo' },
};

/** Adds an operation to the table (features that live elsewhere: password resets, the web app's login). */
export function audited(op: string, entry: Audited): void {
  AUDITED[op] = entry;
}

/** What the dispatcher knows of a request (its RequestTask). */
interface AuditedRequest {
  op: string;
  realmId: number;
  params: Params;
  pathParams: Record<string, string>;
  remoteAddr: string;
}

/** Writes the request's audit line, if its operation has one. */
export function auditRequest(task: AuditedRequest, reply: Reply): void {
  const extra = reply.audit;
  delete reply.audit;
  const entry = AUDITED[task.op];
  if (!entry) return;
  // A page operation answers 200 with its form again when what was typed is refused: only
  // its welcome (or done) page is a success, and that page says so in its status alone here.
  // A redirect is a page's success too (the web app's login sends the browser on).
  const ok = reply.status < 400;
  if (!ok && !entry.failures) return;
  let code: string | undefined;
  if (!ok) {
    try {
      code = (JSON.parse(reply.body) as { code?: string }).code;
    } catch {
      code = undefined;
    }
  }
  auditLog.info(
    { event: entry.event, outcome: ok ? 'ok' : 'refused', ...(code ? { code } : {}), realm: task.realmId, actor: reply.userId ?? null, client: task.remoteAddr, ...entry.fields?.(task.params, task.pathParams), ...extra },
    entry.event,
  );
}
