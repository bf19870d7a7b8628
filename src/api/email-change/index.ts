import { mailerFor } from '../../lib/mail.js';
import { audited } from '../../api-kit/audit.js';
import { defineJobKind } from '../../shard/jobs.js';
import { operation, type Reply } from '../../api-kit/operation.js';
import { deactivatedPage } from '../sessions/pages.js';
import { doConfirmEmailChange, NOTICE_JOB, type NoticeJob } from './actions.js';
import { notifyChangeInEmail } from './mail-text.js';
import { confirmPage, deactivatedUserPage, donePage, linkProblemPage, refusedPage } from './page.js';
import { lookupEmailChange } from './tokens.js';

/**
 * The link an address change mails to the new address (PATCH /settings {email}, settings/),
 * at the reference's paths: GET /accounts/confirm_new_email/<key> shows what it would change and
 * a button, which posts the key to /accounts/confirm_new_email/, where the change is made. Pages
 * outside /api/v1, rendered in the realm's shard (front/pages.ts). No login is asked for: the
 * key, mailed to the new address, is what proves the change is wanted there.
 */
const keyParams = { properties: { key: { type: 'string' } }, required: ['key'] };

const confirmForm = operation<{ key: string }>({
  auth: 'none',
  params: keyParams,
  handler: ({ shard, realm, params }) => {
    if (realm.realm.deactivated) return { __reply: deactivatedPage() };
    const found = lookupEmailChange(shard, realm, params.key);
    return { __reply: found.ok ? confirmPage(realm, found.record, params.key) : linkProblemPage(realm, found.problem) };
  },
});

const confirm = operation<{ key: string }>({
  auth: 'none',
  params: keyParams,
  handler: async ({ shard, realm, params }) => {
    const result = await doConfirmEmailChange(shard, realm, params.key);
    let reply: Reply;
    if (result.ok) {
      reply = { ...donePage(realm, result.oldEmail, result.newEmail), userId: result.user.id, audit: { target: result.user.id, old: result.oldEmail, email: result.newEmail } };
    } else if ('link' in result) {
      reply = { ...linkProblemPage(realm, result.link), audit: { problem: `link ${result.link}` } };
    } else if ('deactivated' in result) {
      reply = { ...(result.deactivated === 'realm' ? deactivatedPage() : deactivatedUserPage(realm)), audit: { problem: `${result.deactivated} deactivated` } };
    } else {
      reply = { ...refusedPage(realm, result.refused), audit: { problem: result.refused } };
    }
    return { __reply: reply };
  },
});

// The account's address is its login: a change, or an attempt with a link, is an audit line.
audited('emailChange.confirm', { event: 'account.email', failures: true });

/**
 * The notice to the old address, after the commit that changed it: a job written in that
 * transaction, so a crash between the two still sends it (a crash after the send, before the
 * job's removal commits, sends it twice; a notice twice beats none).
 */
defineJobKind<NoticeJob>(NOTICE_JOB, {
  maxAttempts: 5,
  run: async ({ shard, job }) => {
    const realm = shard.realm(job.realmId);
    if (realm) await mailerFor(shard.config).send(notifyChangeInEmail(realm, job.data));
  },
});

export const operations = {
  'emailChange.confirmForm': confirmForm,
  'emailChange.confirm': confirm,
};
