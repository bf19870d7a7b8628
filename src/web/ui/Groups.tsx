import { ApiError, call } from '../api.js';
import { GROUP_PERMISSIONS, type GroupPermission, type UserGroup } from '../store/groups.js';
import type { Store } from '../store/store.js';
import { ActionForm, Field, text } from './forms.js';
import { GroupSetting } from './GroupSetting.js';
import { compareNames } from './util.js';

/**
 * User groups (`#settings/groups`, one group at `#settings/groups/<id>`): the list, a new group,
 * and a group's members, subgroups and permissions. What is offered follows the group-valued
 * settings /register gives (the reference's settings_data.ts rules: managing a group lets one
 * add and remove members; adding lets one join; removing lets one leave); the server decides.
 */
const LABELS: Record<GroupPermission, string> = {
  can_manage_group: 'Who can manage this group',
  can_mention_group: 'Who can mention this group',
  can_add_members_group: 'Who can add members',
  can_remove_members_group: 'Who can remove members',
  can_join_group: 'Who can join this group',
  can_leave_group: 'Who can leave this group',
};

export function groupRights(store: Store, g: UserGroup) {
  const manage = store.can('can_manage_all_groups') || store.can(g.can_manage_group ?? 0);
  const add = manage || store.can(g.can_add_members_group ?? 0);
  const remove = manage || store.can(g.can_remove_members_group ?? 0);
  return { manage, add, remove, join: add || store.can(g.can_join_group ?? 0), leave: remove || store.can(g.can_leave_group ?? 0) };
}

/** People named by email address or full name, separated by commas. */
function peopleIn(store: Store, list: string): number[] {
  const ids: number[] = [];
  for (const n of list.split(',').map((s) => s.trim()).filter(Boolean)) {
    const u = [...store.users.values()].find((x) => x.email.toLowerCase() === n.toLowerCase() || x.full_name.toLowerCase() === n.toLowerCase());
    if (!u) throw new Error(`Nobody is called ${n}.`);
    ids.push(u.user_id);
  }
  return ids;
}

const attempt = (fn: () => Promise<unknown>) => {
  try {
    return fn();
  } catch (err) {
    return Promise.reject(err);
  }
};

export function Groups({ store, id }: { store: Store; id?: number }) {
  const group = id !== undefined ? store.groups.get(id) : undefined;
  if (group && !group.is_system_group) return <GroupDetail key={group.id} store={store} g={group} />;
  const groups = store.groups.named().sort((a, b) => compareNames(a.name, b.name));
  return (
    <>
      <h2>User groups</h2>
      <ul class="plain group-list" aria-label="User groups">
        {groups.map((g) => (
          <li key={g.id}>
            <a href={`#settings/groups/${g.id}`}>{g.name}</a> <small>{g.description}</small> <small>({g.members.length} members{g.members.includes(store.selfId) ? ', you among them' : ''})</small>
          </li>
        ))}
        {groups.length === 0 && <li>No groups yet.</li>}
      </ul>
      {store.can('can_create_groups') && (
        <ActionForm label="Create a group" submit="Create group" reset done="Group created." action={(d) => attempt(() => call('POST', '/user_groups/create', { name: text(d, 'name'), description: text(d, 'description'), members: peopleIn(store, text(d, 'members')) }))}>
          <Field label="Group name" name="name" required />
          <Field label="Description" name="description" />
          <Field label="Members (names or email addresses, separated by commas)" name="members" />
        </ActionForm>
      )}
    </>
  );
}

function GroupDetail({ store, g }: { store: Store; g: UserGroup }) {
  const rights = groupRights(store, g);
  const member = g.members.includes(store.selfId);
  const members = g.members.map((uid) => ({ uid, name: store.userName(uid) })).sort((a, b) => compareNames(a.name, b.name));
  const change = (body: Record<string, unknown>) => call('POST', `/user_groups/${g.id}/members`, body).catch((err) => alert(err instanceof ApiError ? err.message : String(err)));
  return (
    <>
      <p>
        <a href="#settings/groups">All groups</a>
      </p>
      <h2>{g.name}</h2>
      {g.deactivated && <p class="error">This group is deactivated.</p>}
      <p>{g.description}</p>
      <p>
        {member && rights.leave && (
          <button type="button" onClick={() => void change({ delete: [store.selfId] })}>
            Leave group
          </button>
        )}
        {!member && rights.join && (
          <button type="button" onClick={() => void change({ add: [store.selfId] })}>
            Join group
          </button>
        )}
      </p>
      <h3>Members</h3>
      <ul class="plain" aria-label={`Members of ${g.name}`}>
        {members.map(({ uid, name }) => (
          <li key={uid}>
            {name}{' '}
            {rights.remove && (
              <button type="button" aria-label={`Remove ${name} from ${g.name}`} onClick={() => void change({ delete: [uid] })}>
                Remove
              </button>
            )}
          </li>
        ))}
        {members.length === 0 && <li>Nobody directly.</li>}
      </ul>
      {g.direct_subgroup_ids.length > 0 && <p>And everyone in: {g.direct_subgroup_ids.map((sid) => store.groups.label(sid)).join(', ')}.</p>}
      {rights.add && (
        <ActionForm label="Add members" submit="Add" reset action={(d) => attempt(() => call('POST', `/user_groups/${g.id}/members`, { add: peopleIn(store, text(d, 'people')) }))}>
          <Field label="People to add (names or email addresses, separated by commas)" name="people" required />
        </ActionForm>
      )}
      {rights.manage && (
        <>
          <h3>Settings</h3>
          <ActionForm label="Name and description" submit="Save" action={(d) => call('PATCH', `/user_groups/${g.id}`, { ...(text(d, 'name') !== g.name ? { name: text(d, 'name') } : {}), description: text(d, 'description') })}>
            <Field label="Group name" name="name" value={g.name} required />
            <Field label="Description" name="description" value={g.description} />
          </ActionForm>
          {GROUP_PERMISSIONS.map((name) => (
            <GroupSetting key={name} store={store} kind="group" name={name} label={LABELS[name]} value={g[name]} save={(update) => call('PATCH', `/user_groups/${g.id}`, { [name]: update })} />
          ))}
          {!g.deactivated && (
            <p>
              <button type="button" class="danger" onClick={() => confirm(`Deactivate ${g.name}?`) && void call('POST', `/user_groups/${g.id}/deactivate`).catch((err) => alert(err.message))}>
                Deactivate group
              </button>
            </p>
          )}
        </>
      )}
    </>
  );
}
