import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { createUser, startTestServer } from '../../helpers/server.js';

// The reference numbers reusable links (MultiuseInvite) apart from email invitations
// (PreregistrationUser): its API test suite sends email invitations, then edits "reusable link 1".
t.test('reusable links are numbered on their own', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'stoa-test-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const ts = await startTestServer(t, {}, { dataDir });
  const ann = await createUser(ts, 'ann@example.com', 'Ann');
  const listed = async (s = ts) => (await s.request('GET', '/invites')).body.invites as any[];
  const link = async (s = ts) => (await s.request('POST', '/invites/multiuse', { params: {} })).body.invite_link as string;
  const email = async (address: string, s = ts) => t.equal((await s.request('POST', '/invites', { params: { invitee_emails: address, stream_ids: [] } })).status, 200, `invited ${address}`);

  await email('one@example.net');
  await email('two@example.net');
  const first = await link();
  await email('three@example.net');
  const second = await link();
  const invites = await listed();
  const byLink = (url: string) => invites.find((i) => i.is_multiuse && i.link_url === url);
  t.equal(byLink(first).id, 1, 'the first link is 1, whatever email invitations came before');
  t.equal(byLink(second).id, 2, 'the next is 2');
  const emailIds = invites.filter((i) => !i.is_multiuse).map((i) => i.id);
  t.equal(new Set(emailIds).size, 3, 'email invitations keep ids of their own, distinct');

  t.test('the endpoints take each kind\'s own id', async (t) => {
    const edit = await ts.request('PATCH', '/invites/multiuse/1', { params: { invite_as: 600 } });
    t.equal(edit.status, 200, 'PATCH /invites/multiuse/1 edits the first link');
    t.equal((await listed()).find((i) => i.link_url === first).invited_as, 600, 'that link, not an email invitation');
    const emailOne = (await listed()).find((i) => !i.is_multiuse && i.email === 'one@example.net');
    const asLink = await ts.request('DELETE', `/invites/multiuse/${emailOne.id + 100}`);
    t.same([asLink.status, asLink.body.msg], [400, 'No such invitation'], 'an unknown link id');
    t.equal((await ts.request('DELETE', '/invites/multiuse/2')).status, 200, 'DELETE /invites/multiuse/2 revokes the second link');
    t.notOk((await listed()).some((i) => i.link_url === second), 'it is gone from the list');
    t.ok((await listed()).some((i) => i.link_url === first), 'the first stays');
    t.equal((await ts.request('DELETE', `/invites/${emailOne.id}`)).status, 200, 'DELETE /invites/{id} revokes the email invitation');
    t.ok((await listed()).some((i) => i.link_url === first), 'and leaves the link of the same number alone');
    t.equal((await ts.as(ann)('PATCH', '/invites/multiuse/1', { params: { invite_as: 400 } })).status, 400, 'a member cannot edit an administrator\'s link');
  });

  t.test('after a restart: same ids, and numbering goes on', async (t) => {
    const before = await listed();
    await ts.close();
    const again = await startTestServer(t, {}, { dataDir });
    // The port changes with the restart, so links are compared by their key.
    const shape = (list: any[]) => list.map((i) => ({ ...i, link_url: i.link_url?.replace(/^.*\/join\//, '') }));
    t.same(shape(await listed(again)), shape(before), 'the same invitations and ids');
    const third = await link(again);
    t.equal((await listed(again)).find((i) => i.link_url === third).id, 3, 'the next link is 3');
  });
});
