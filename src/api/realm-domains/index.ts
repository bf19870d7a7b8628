import { operation } from '../../api-kit/operation.js';
import { checkNewDomain, doAddDomain, doChangeDomain, doRemoveDomain, domainsOf, domainView, existingDomain } from './actions.js';

/**
 * GET and POST /realm/domains, PATCH and DELETE /realm/domains/{domain}: in the reference's URL
 * table, not in its OpenAPI description. Anyone may list them; changes are the owners'.
 */
const list = operation({
  auth: 'user',
  handler: (ctx) => ({ domains: domainsOf(ctx.realm).map(domainView) }),
});

const add = operation<{ domain: string; allow_subdomains: boolean }>({
  auth: 'user',
  role: 'owner',
  params: { properties: { domain: { type: 'string' }, allow_subdomains: { type: 'boolean' } }, required: ['domain', 'allow_subdomains'] },
  handler: async (ctx) => {
    const domain = checkNewDomain(ctx.realm, ctx.params.domain);
    const id = await doAddDomain(ctx.shard, ctx.realm, domain, ctx.params.allow_subdomains);
    return { new_domain: [id, domain] };
  },
});

const change = operation<{ domain: string; allow_subdomains: boolean }>({
  auth: 'user',
  role: 'owner',
  params: { properties: { domain: { type: 'string' }, allow_subdomains: { type: 'boolean' } }, required: ['domain', 'allow_subdomains'] },
  handler: async (ctx) => {
    await doChangeDomain(ctx.shard, ctx.realm, existingDomain(ctx.realm, ctx.params.domain), ctx.params.allow_subdomains);
    return {};
  },
});

const remove = operation<{ domain: string }>({
  auth: 'user',
  role: 'owner',
  params: { properties: { domain: { type: 'string' } }, required: ['domain'] },
  handler: async (ctx) => {
    await doRemoveDomain(ctx.shard, ctx.realm, existingDomain(ctx.realm, ctx.params.domain));
    return {};
  },
});

export const operations = {
  'realmDomains.list': list,
  'realmDomains.add': add,
  'realmDomains.change': change,
  'realmDomains.remove': remove,
};
