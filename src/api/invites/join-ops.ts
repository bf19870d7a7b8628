import { ApiError } from '../../lib/errors.js';
import { operation } from '../../api-kit/operation.js';
import { checkSignup, doAcceptInvite, lookupLink, SignupError } from './join.js';
import { formPage, problemPage, welcomePage } from './page.js';

/**
 * GET and POST /join/<key>/: the sign-up page of an invitation link, outside /api/v1 (the front
 * end routes it, front/pages.ts). Everything is decided here, in the realm's shard, and every
 * answer is an HTML page, errors included.
 */

const joinParams = {
  properties: {
    key: { type: 'string' },
    email: { type: 'string' },
    full_name: { type: 'string' },
    password: { type: 'string' },
  },
  required: ['key'],
};

interface JoinParams {
  key: string;
  email?: string;
  full_name?: string;
  password?: string;
}

const joinPage = operation<JoinParams>({
  auth: 'none',
  params: joinParams,
  handler: ({ shard, realm, params }) => {
    const link = lookupLink(shard, realm, params.key);
    return { __reply: link.problem ? problemPage(realm, link.problem, link.invite) : formPage(realm, link.invite) };
  },
});

const join = operation<JoinParams>({
  auth: 'none',
  params: joinParams,
  handler: async ({ shard, realm, params }) => {
    const link = lookupLink(shard, realm, params.key);
    if (link.problem) return { __reply: problemPage(realm, link.problem, link.invite) };
    const typed = { email: params.email ?? '', fullName: params.full_name ?? '', password: params.password ?? '' };
    try {
      const form = checkSignup(realm, link.invite, typed);
      const user = await doAcceptInvite(shard, realm, link.invite, form);
      return { __reply: welcomePage(realm, user) };
    } catch (err) {
      // A check that lost a race with another request (the address taken meanwhile) is shown
      // like any other problem with the form.
      const error = err instanceof SignupError ? err : err instanceof ApiError ? new SignupError(null, err.message) : null;
      if (!error) throw err;
      return { __reply: formPage(realm, link.invite, typed, error) };
    }
  },
});

export const joinOperations = {
  'invites.joinPage': joinPage,
  'invites.join': join,
};
