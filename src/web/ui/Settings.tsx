import { useState } from 'preact/hooks';
import { call } from '../api.js';
import type { Store } from '../store/store.js';
import { AdminSection, ADMIN_SECTIONS } from './Admin.js';
import { Avatar, avatarSrc } from './Avatar.js';
import { ChannelSettings } from './ChannelSettings.js';
import { ActionForm, Field, text } from './forms.js';
import { Groups } from './Groups.js';
import { askNotificationPermission } from './notify.js';
import { StatusForm } from './Status.js';

/**
 * Personal settings (profile, display, notifications, muted people and topics, password) and,
 * for administrators, the organization's (Admin.tsx). Each change goes through the API; the
 * screen shows what the resulting events bring back.
 */
const PERSONAL: [string, string][] = [
  ['profile', 'Profile'],
  ['display', 'Display'],
  ['notifications', 'Notifications'],
  ['muted', 'Muted'],
  ['password', 'Password'],
  ['channels', 'Channels'],
  ['groups', 'Groups'],
];

export function Settings({ store, section, id }: { store: Store; section: string; id?: number }) {
  const sections = [...PERSONAL, ...(store.isAdmin ? ADMIN_SECTIONS : [['invitations', 'Invitations'] as [string, string]])];
  // One channel's settings (#channels/<id>) sit under Channels.
  const current = section === 'channel' && id !== undefined ? 'channel' : (sections.find(([s]) => s === section)?.[0] ?? 'profile');
  return (
    <section class="settings" aria-labelledby="settings-title">
      <h1 id="settings-title" class="view-title">
        Settings
      </h1>
      <nav class="settings-nav" aria-label="Settings sections">
        <ul>
          {sections.map(([id, label]) => (
            <li key={id}>
              <a href={`#settings/${id}`} aria-current={id === current || (id === 'channels' && current === 'channel') ? 'page' : undefined}>
                {label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <div class="settings-panel">
        <Panel store={store} section={current} id={id} />
      </div>
    </section>
  );
}

function Panel({ store, section, id }: { store: Store; section: string; id?: number }) {
  const s = store.settings;
  switch (section) {
    case 'channel':
      return <ChannelSettings store={store} streamId={id!} />;
    case 'groups':
      return <Groups store={store} id={id} />;
    case 'profile':
      return (
        <>
          <h2>Profile</h2>
          <ActionForm label="Your name" submit="Save name" action={(d) => call('PATCH', '/settings', { full_name: text(d, 'full_name') })}>
            <Field label="Full name" name="full_name" value={store.self.full_name} required />
          </ActionForm>
          {/* The address changes once the link mailed to the new one is used (api/email-change/). */}
          <ActionForm label="Your email address" submit="Change email" done="Check your email to confirm the new address." action={(d) => call('PATCH', '/settings', { email: text(d, 'email') })}>
            <Field label="Email address" name="email" type="email" value={store.self.email} required autocomplete="email" />
          </ActionForm>
          <StatusForm store={store} />
          <p class="current-avatar">
            <Avatar url={store.self.avatar_url} name={store.self.full_name} size={64} label="Your avatar" />
          </p>
          {avatarSrc(store.self.avatar_url) && (
            <p>
              <button type="button" onClick={() => void call('DELETE', '/users/me/avatar').catch((err) => alert(err.message))}>
                Remove avatar
              </button>
            </p>
          )}
          <ActionForm label="Your avatar" submit="Upload avatar" action={(d) => call('POST', '/users/me/avatar', {}, { body: d })}>
            <p class="field">
              <label for="avatar-file">Avatar image</label>
              <input id="avatar-file" name="file" type="file" accept="image/*" required />
            </p>
          </ActionForm>
        </>
      );
    case 'display':
      return (
        <>
          <h2>Display</h2>
          <p class="field">
            <label for="theme">Theme</label>
            <select id="theme" value={s.color_scheme ?? 1} onChange={(e) => void call('PATCH', '/settings', { color_scheme: Number((e.target as HTMLSelectElement).value) })}>
              <option value={1}>Automatic</option>
              <option value={3}>Light</option>
              <option value={2}>Dark</option>
            </select>
          </p>
          <Toggle store={store} name="twenty_four_hour_time" label="Time in 24-hour format" />
          <Toggle store={store} name="enter_sends" label="Enter sends a message (Shift+Enter breaks a line)" />
        </>
      );
    case 'notifications':
      return (
        <>
          <h2>Notifications</h2>
          <Permission />
          <Toggle store={store} name="enable_desktop_notifications" label="Desktop notifications for direct messages and mentions" />
          <Toggle store={store} name="enable_sounds" label="Sound for direct messages and mentions" />
          <Toggle store={store} name="send_private_typing_notifications" label="Let others see when I am typing a direct message" />
          <Toggle store={store} name="send_stream_typing_notifications" label="Let others see when I am typing in a channel" />
        </>
      );
    case 'muted':
      return <Muted store={store} />;
    case 'password':
      return (
        <>
          <h2>Password</h2>
          <ActionForm label="Change password" submit="Change password" reset done="Your password has been changed." action={(d) => call('PATCH', '/settings', { old_password: text(d, 'old_password'), new_password: text(d, 'new_password') })}>
            <Field label="Current password" name="old_password" type="password" autocomplete="current-password" required />
            <Field label="New password" name="new_password" type="password" autocomplete="new-password" minLength={store.snapshot.password_min_length} required />
          </ActionForm>
        </>
      );
    default:
      return <AdminSection store={store} section={section} />;
  }
}

function Toggle({ store, name, label }: { store: Store; name: string; label: string }) {
  return (
    <p class="field toggle">
      <label>
        <input type="checkbox" checked={!!store.settings[name]} onChange={(e) => void call('PATCH', '/settings', { [name]: (e.target as HTMLInputElement).checked })} /> {label}
      </label>
    </p>
  );
}

function Permission() {
  const [state, setState] = useState(typeof Notification === 'undefined' ? 'unsupported' : Notification.permission);
  if (state === 'granted') return <p>This browser shows notifications.</p>;
  if (state === 'unsupported') return <p>This browser cannot show notifications.</p>;
  return (
    <p>
      <button type="button" onClick={() => void askNotificationPermission().then(setState)}>
        Allow browser notifications
      </button>
    </p>
  );
}

function Muted({ store }: { store: Store }) {
  const topics = [...store.topicPolicies].filter(([, p]) => p === 1);
  return (
    <>
      <h2>Muted people</h2>
      <ul class="plain">
        {[...store.mutedUsers].map((id) => (
          <li key={id}>
            {store.userName(id)}{' '}
            <button type="button" onClick={() => void call('DELETE', `/users/me/muted_users/${id}`)}>
              Unmute
            </button>
          </li>
        ))}
        {store.mutedUsers.size === 0 && <li>Nobody.</li>}
      </ul>
      <ActionForm label="Mute someone" submit="Mute" reset action={(d) => {
        const u = [...store.users.values()].find((x) => x.email === text(d, 'email') || x.full_name === text(d, 'email'));
        return u ? call('POST', `/users/me/muted_users/${u.user_id}`) : Promise.reject(new Error('No such person.'));
      }}>
        <Field label="Name or email address" name="email" required />
      </ActionForm>
      <h2>Muted topics</h2>
      <ul class="plain">
        {topics.map(([key]) => {
          const [sid, ...rest] = key.split(':');
          const topic = rest.join(':');
          return (
            <li key={key}>
              #{store.streamName(Number(sid))} › {topic}{' '}
              <button type="button" onClick={() => void call('POST', '/user_topics', { stream_id: Number(sid), topic, visibility_policy: 0 })}>
                Unmute
              </button>
            </li>
          );
        })}
        {topics.length === 0 && <li>None.</li>}
      </ul>
    </>
  );
}
