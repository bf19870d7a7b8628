import { useEffect, useState } from 'preact/hooks';
import { call } from '../api.js';
import type { Store } from '../store/store.js';
import { ActionForm, Field, text } from './forms.js';
import { compareNames } from './util.js';

/**
 * The organization's settings: its name and description, invitations, people, channels,
 * custom emoji and linkifiers. Shown to administrators (channels and invitations to everyone:
 * the organization's permissions, which the server checks, decide who may use them). Lists the
 * store does not hold (invitations, linkifiers) are read when the panel opens.
 */
export const ADMIN_SECTIONS: [string, string][] = [
  ['organization', 'Organization'],
  ['invitations', 'Invitations'],
  ['people', 'People'],
  ['emoji', 'Custom emoji'],
  ['linkifiers', 'Linkifiers'],
];

const ROLES: [number, string][] = [
  [100, 'Owner'],
  [200, 'Administrator'],
  [300, 'Moderator'],
  [400, 'Member'],
  [600, 'Guest'],
];

/** A list read from the API when shown, and again after each change made here. */
function useFetched<T>(path: string, pick: (r: any) => T, initial: T): [T, () => void] {
  const [value, setValue] = useState(initial);
  const [n, setN] = useState(0);
  useEffect(() => {
    call('GET', path).then((r) => setValue(pick(r)), () => undefined);
  }, [path, n]);
  return [value, () => setN(n + 1)];
}

export function AdminSection({ store, section }: { store: Store; section: string }) {
  switch (section) {
    case 'organization':
      return (
        <>
          <h2>Organization</h2>
          <ActionForm label="Organization profile" submit="Save" action={(d) => call('PATCH', '/realm', { name: text(d, 'name'), description: text(d, 'description') })}>
            <Field label="Organization name" name="name" value={store.realm.name} required />
            <p class="field">
              <label for="org-description">Description</label>
              <textarea id="org-description" name="description" rows={3} defaultValue={store.realm.description} />
            </p>
          </ActionForm>
        </>
      );
    case 'invitations':
      return <Invitations store={store} />;
    case 'people':
      return <People store={store} />;
    case 'channels':
      return <Channels store={store} />;
    case 'emoji':
      return (
        <>
          <h2>Custom emoji</h2>
          <ul class="plain">
            {[...store.realmEmoji.values()].filter((e) => !e.deactivated).map((e) => (
              <li key={e.id}>
                <img src={e.source_url} alt="" width={20} height={20} /> :{e.name}:{' '}
                <button type="button" onClick={() => void call('DELETE', `/realm/emoji/${encodeURIComponent(e.name)}`)}>
                  Remove
                </button>
              </li>
            ))}
          </ul>
          <ActionForm label="Add custom emoji" submit="Add emoji" reset action={(d) => call('POST', `/realm/emoji/${encodeURIComponent(text(d, 'emoji_name'))}`, {}, { body: onlyFile(d) })}>
            <Field label="Name" name="emoji_name" required />
            <p class="field">
              <label for="emoji-file">Image</label>
              <input id="emoji-file" name="file" type="file" accept="image/*" required />
            </p>
          </ActionForm>
        </>
      );
    case 'linkifiers':
      return <Linkifiers />;
    default:
      return <p>Unknown section.</p>;
  }
}

function onlyFile(d: FormData): FormData {
  const out = new FormData();
  out.append('file', d.get('file') as File);
  return out;
}

function Invitations({ store }: { store: Store }) {
  const [invites, refresh] = useFetched('/invites', (r) => r.invites as any[], []);
  const [link, setLink] = useState('');
  const channels = [...store.subs.values()];
  const streamIds = (d: FormData) => d.getAll('stream_ids').map(Number);
  return (
    <>
      <h2>Invitations</h2>
      <ActionForm label="Invite by link" submit="Create invitation link" done="Link created." action={(d) => call('POST', '/invites/multiuse', { stream_ids: streamIds(d), invite_expires_in_minutes: Number(text(d, 'expires')) || null }).then((r) => (setLink(r.invite_link), refresh()))}>
        <ChannelChoice channels={channels} />
        <p class="field">
          <label for="invite-expires">Expires</label>
          <select id="invite-expires" name="expires">
            <option value={1440}>in a day</option>
            <option value={10080}>in a week</option>
            <option value={0}>never</option>
          </select>
        </p>
      </ActionForm>
      {link && (
        <p class="field">
          <label for="invite-link">Invitation link</label>
          <input id="invite-link" readOnly value={link} onFocus={(e) => (e.target as HTMLInputElement).select()} />
          <button type="button" onClick={() => void navigator.clipboard?.writeText(link)}>
            Copy
          </button>
        </p>
      )}
      <ActionForm label="Invite by email" submit="Send invitations" reset done="Invitations sent." action={(d) => call('POST', '/invites', { invitee_emails: text(d, 'emails'), stream_ids: streamIds(d) }).then(refresh)}>
        <Field label="Email addresses (separated by commas)" name="emails" required />
        <ChannelChoice channels={channels} />
      </ActionForm>
      <h3>Pending invitations</h3>
      <ul class="plain" aria-label="Pending invitations">
        {invites.map((inv) => (
          <li key={`${inv.is_multiuse}-${inv.id}`}>
            {inv.is_multiuse ? `Reusable link by ${store.userName(inv.invited_by_user_id)}` : inv.email}{' '}
            <button type="button" onClick={() => void call('DELETE', inv.is_multiuse ? `/invites/multiuse/${inv.id}` : `/invites/${inv.id}`).then(refresh)}>
              Revoke
            </button>
          </li>
        ))}
        {invites.length === 0 && <li>None.</li>}
      </ul>
    </>
  );
}

function ChannelChoice({ channels }: { channels: { stream_id: number; name: string }[] }) {
  return (
    <fieldset class="field">
      <legend>Channels to join</legend>
      {channels.map((c) => (
        <label key={c.stream_id} class="inline">
          <input type="checkbox" name="stream_ids" value={c.stream_id} /> #{c.name}
        </label>
      ))}
    </fieldset>
  );
}

function People({ store }: { store: Store }) {
  const people = [...store.users.values()].filter((u) => !u.is_bot || u.is_active).sort((a, b) => compareNames(a.full_name, b.full_name));
  return (
    <>
      <h2>People</h2>
      <table class="people">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Email</th>
            <th scope="col">Role</th>
            <th scope="col">Account</th>
          </tr>
        </thead>
        <tbody>
          {people.map((u) => (
            <tr key={u.user_id}>
              <td>{u.full_name}</td>
              <td>{u.email}</td>
              <td>
                <select aria-label={`Role of ${u.full_name}`} value={u.role} disabled={u.is_bot || u.user_id === store.selfId} onChange={(e) => void call('PATCH', `/users/${u.user_id}`, { role: Number((e.target as HTMLSelectElement).value) }).catch((err) => alert(err.message))}>
                  {ROLES.map(([r, name]) => (
                    <option value={r}>{name}</option>
                  ))}
                </select>
              </td>
              <td>
                {u.user_id !== store.selfId &&
                  (u.is_active ? (
                    <button type="button" onClick={() => confirm(`Deactivate ${u.full_name}?`) && void call('DELETE', `/users/${u.user_id}`).catch((err) => alert(err.message))}>
                      Deactivate
                    </button>
                  ) : (
                    <button type="button" onClick={() => void call('POST', `/users/${u.user_id}/reactivate`).catch((err) => alert(err.message))}>
                      Reactivate
                    </button>
                  ))}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

function Channels({ store }: { store: Store }) {
  const all = [...store.streams.values()].filter((s) => !s.is_archived).sort((a, b) => compareNames(a.name, b.name));
  return (
    <>
      <h2>Channels</h2>
      <ActionForm label="Create a channel" submit="Create channel" reset done="Channel created." action={(d) => call('POST', '/users/me/subscriptions', { subscriptions: [{ name: text(d, 'name'), description: text(d, 'description') }], invite_only: d.get('private') === 'on' })}>
        <Field label="Channel name" name="name" required />
        <Field label="Description" name="description" />
        <p class="field toggle">
          <label>
            <input type="checkbox" name="private" /> Private (only those invited see it)
          </label>
        </p>
      </ActionForm>
      <table class="channel-list">
        <thead>
          <tr>
            <th scope="col">Channel</th>
            <th scope="col">Description</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {all.map((s) => {
            const subscribed = store.subs.has(s.stream_id);
            return (
              <tr key={s.stream_id}>
                <td>
                  {s.invite_only ? '🔒' : '#'}
                  {s.name}
                </td>
                <td>{s.description}</td>
                <td>
                  <button type="button" onClick={() => void (subscribed ? call('DELETE', '/users/me/subscriptions', { subscriptions: [s.name] }) : call('POST', '/users/me/subscriptions', { subscriptions: [{ name: s.name }] })).catch((err) => alert(err.message))}>
                    {subscribed ? 'Leave' : 'Join'}
                  </button>
                  {' '}
                  <a href={`#channels/${s.stream_id}`} aria-label={`Settings of #${s.name}`}>
                    Settings
                  </a>
                  {store.canAdminister(s.stream_id) && (
                    <>
                      {' '}
                      <button type="button" class="danger" onClick={() => confirm(`Archive #${s.name}?`) && void call('DELETE', `/streams/${s.stream_id}`).catch((err) => alert(err.message))}>
                        Archive
                      </button>
                    </>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </>
  );
}

function Linkifiers() {
  const [list, refresh] = useFetched('/realm/linkifiers', (r) => r.linkifiers as { id: number; pattern: string; url_template: string }[], []);
  return (
    <>
      <h2>Linkifiers</h2>
      <ul class="plain">
        {list.map((l) => (
          <li key={l.id}>
            <code>{l.pattern}</code> → <code>{l.url_template}</code>{' '}
            <button type="button" onClick={() => void call('DELETE', `/realm/filters/${l.id}`).then(refresh)}>
              Remove
            </button>
          </li>
        ))}
      </ul>
      <ActionForm label="Add a linkifier" submit="Add linkifier" reset action={(d) => call('POST', '/realm/filters', { pattern: text(d, 'pattern'), url_template: text(d, 'url_template') }).then(refresh)}>
        <Field label="Pattern" name="pattern" placeholder="#(?P<id>[0-9]+)" required />
        <Field label="URL template" name="url_template" placeholder="https://github.com/org/repo/issues/{id}" required />
      </ActionForm>
    </>
  );
}
