import t from 'tap';
import { convergenceHarness } from '../../helpers/convergence.js';
import { listen } from '../streams/queues.js';
import { startWorld, streamId, subscribe } from '../streams/world.js';

/**
 * Default channel groups: POST /default_stream_groups/create, PATCH and DELETE
 * /default_stream_groups/{group_id}, PATCH /default_stream_groups/{group_id}/streams, with the
 * reference's errors (zerver/actions/default_streams.py), the default_stream_groups event and
 * realm_default_stream_groups in /register.
 */
t.test('default channel groups', async (t) => {
  const w = await startWorld(t);
  const { owner, admin, hamlet, polonius } = w.root;
  for (const name of ['alpha', 'beta', 'gamma']) await subscribe(w.as(admin), [name]);
  await subscribe(w.as(hamlet), ['hideout'], { invite_only: true });
  const [alpha, beta, gamma] = await Promise.all(['alpha', 'beta', 'gamma'].map((n) => streamId(w.as(owner), n)));
  const groups = async (who = admin) => (await w.as(who)('POST', '/register', { params: { fetch_event_types: ['default_stream_groups'] } })).body.realm_default_stream_groups;
  const create = (params: Record<string, unknown>, who = admin) => w.as(who)('POST', '/default_stream_groups/create', { params });
  const error = async (res: Promise<{ status: number; body: { msg: string } }>) => {
    const r = await res;
    return [r.status, r.body.msg];
  };

  let id = 0;
  t.test('creating, with the event', async (t) => {
    t.same(await groups(), [], 'none at first');
    const members = await listen(w.as(hamlet), { event_types: ['default_stream_groups'] });
    const guests = await listen(w.as(polonius), { event_types: ['default_stream_groups'] });
    t.same((await create({ group_name: 'Engineering', description: 'For engineers', stream_names: ['gamma', 'alpha'] })).body, { result: 'success', msg: '' }, 'created');
    const list = await groups();
    id = list[0].id;
    t.same(list, [{ name: 'Engineering', id, description: 'For engineers', streams: [alpha, gamma] }], 'listed, channels by name');
    t.same(await members.drain(t), [{ type: 'default_stream_groups', default_stream_groups: list }], 'members hear the whole list');
    t.same(await guests.drain(t), [], 'guests do not');
    t.same(await groups(polonius), [], 'and see none in /register');
  });

  t.test('errors', async (t) => {
    t.same(await error(create({ group_name: 'X', description: '', stream_names: ['alpha'] }, hamlet)), [400, 'Must be an organization administrator'], 'members may not');
    t.same(await error(create({ group_name: 'Engineering', description: '', stream_names: ['beta'] })), [400, "Default channel group 'Engineering' already exists"], 'a name twice');
    t.same(await error(create({ group_name: '  ', description: '', stream_names: [] })), [400, "Invalid default channel group name '  '"], 'a blank name');
    t.same(await error(create({ group_name: 'x'.repeat(61), description: '', stream_names: [] })), [400, 'Default channel group name too long (limit: 60 characters)'], 'a long name');
    t.same(await error(create({ group_name: 'Nowhere', description: '', stream_names: ['no such'] })), [400, "Invalid channel name 'no such'"], 'an unknown channel');
    t.same(await error(create({ group_name: 'Hidden', description: '', stream_names: ['hideout'] })), [400, "Invalid channel name 'hideout'"], 'a private channel the administrator cannot read');
    t.same(await error(create({ group_name: 'Defaults', description: '', stream_names: ['general'] })), [400, "'general' is a default channel and cannot be added to 'Defaults'"], 'a default channel');
    const missing = await w.as(admin)('PATCH', '/default_stream_groups/9999', { params: { new_description: 'x' } });
    t.same([missing.status, missing.body.msg], [400, "Default channel group with id '9999' not found"], 'an unknown group');
    t.same((await groups()).length, 1, 'nothing was made');
  });

  t.test('renaming and describing', async (t) => {
    const patch = (params: Record<string, unknown>) => w.as(admin)('PATCH', `/default_stream_groups/${id}`, { params });
    t.same(await error(patch({})), [400, 'You must pass "new_description" or "new_group_name".'], 'nothing to change');
    t.same(await error(patch({ new_group_name: 'Engineering' })), [400, "This default channel group is already named 'Engineering'"], 'the same name');
    t.equal((await create({ group_name: 'Design', description: '', stream_names: ['beta'] })).status, 200, 'a second group');
    t.same(await error(patch({ new_group_name: 'Design' })), [400, "Default channel group 'Design' already exists"], "another group's name");
    t.equal((await patch({ new_group_name: 'Builders', new_description: 'Who build' })).status, 200, 'renamed and described');
    t.same((await groups()).map((g: { name: string; description: string }) => [g.name, g.description]), [['Builders', 'Who build'], ['Design', '']], 'sorted by name');
  });

  t.test('adding and removing channels', async (t) => {
    const streams = (op: string, names: string[]) => w.as(admin)('PATCH', `/default_stream_groups/${id}/streams`, { params: { op, stream_names: names } });
    t.same(await error(streams('add', ['alpha'])), [400, "Channel 'alpha' is already present in default channel group 'Builders'"], 'one already there');
    t.same(await error(streams('remove', ['beta'])), [400, "Channel 'beta' is not present in default channel group 'Builders'"], 'one not there');
    t.same(await error(streams('move', ['beta'])), [400, 'Invalid value for "op". Specify one of "add" or "remove".'], 'an unknown op');
    t.equal((await streams('add', ['beta'])).status, 200, 'added');
    t.equal((await streams('remove', ['alpha'])).status, 200, 'removed');
    t.same((await groups()).find((g: { id: number }) => g.id === id).streams, [beta, gamma], 'the channels now');
  });

  t.test('an archived channel leaves its groups', async (t) => {
    t.equal((await w.as(admin)('DELETE', `/streams/${gamma}`)).status, 200, 'archived');
    t.same((await groups()).find((g: { id: number }) => g.id === id).streams, [beta], 'gone from the group');
  });

  t.test('events keep /register current', async (t) => {
    const { ok, converges } = convergenceHarness(t, w.ts);
    const viewers = [{ ...admin }, { ...hamlet }, { ...polonius }];
    await converges('create, edit, delete', async () => {
      await ok(admin, 'POST', '/default_stream_groups/create', { group_name: 'Ops', description: 'd', stream_names: ['alpha'] });
      await ok(admin, 'PATCH', `/default_stream_groups/${id}/streams`, { op: 'add', stream_names: ['alpha'] });
      await ok(admin, 'DELETE', `/default_stream_groups/${id}`);
    }, viewers);
    t.same((await groups()).map((g: { name: string }) => g.name), ['Design', 'Ops'], 'deleted');
    t.equal((await w.as(admin)('DELETE', `/default_stream_groups/${id}`)).status, 400, 'not twice');
  });
});
