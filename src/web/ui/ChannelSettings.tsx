import { useState } from 'preact/hooks';
import { ApiError, call } from '../api.js';
import { Narrow } from '../store/narrow.js';
import type { Store } from '../store/store.js';
import type { Subscription } from '../types.js';
import { ActionForm, Field, text } from './forms.js';
import { GroupSetting } from './GroupSetting.js';
import { hashOf } from './util.js';

/**
 * One channel's settings (`#channels/<id>`): the person's own (colour, pin, mute, and the
 * notifications that differ from their defaults) when subscribed, and, for those who may
 * administer it (the organization's administrators, the channel's can_administer_channel_group),
 * its name, description, privacy and group-valued permissions. Every change goes through the
 * API and shows when its event comes back.
 */

/** Each channel notification setting and the personal default it falls back to (null). */
const NOTIFICATIONS: [keyof Subscription & string, string, string][] = [
  ['desktop_notifications', 'enable_stream_desktop_notifications', 'Desktop notifications'],
  ['audible_notifications', 'enable_stream_audible_notifications', 'Audible notifications'],
  ['push_notifications', 'enable_stream_push_notifications', 'Mobile notifications'],
  ['email_notifications', 'enable_stream_email_notifications', 'Email notifications'],
  ['wildcard_mentions_notify', 'wildcard_mentions_notify', 'Notify for @all and @everyone mentions'],
];

const PERMISSIONS: [string, string][] = [
  ['can_send_message_group', 'Who can post to this channel'],
  ['can_add_subscribers_group', 'Who can subscribe others to this channel'],
  ['can_remove_subscribers_group', 'Who can unsubscribe others from this channel'],
  ['can_subscribe_group', 'Who can subscribe to this channel'],
  ['can_administer_channel_group', 'Who can administer this channel'],
];

const setProperty = (streamId: number, property: string, value: unknown) => call('POST', '/users/me/subscriptions/properties', { subscription_data: [{ stream_id: streamId, property, value }] });

function useStatus() {
  const [status, setStatus] = useState<{ ok: boolean; text: string } | null>(null);
  const run = (p: Promise<unknown>) => p.then(() => setStatus({ ok: true, text: 'Saved.' }), (err) => setStatus({ ok: false, text: err instanceof ApiError ? err.message : String(err) }));
  const view = (
    <p class={status?.ok === false ? 'error' : 'ok'} role={status?.ok === false ? 'alert' : 'status'}>
      {status?.text ?? ''}
    </p>
  );
  return { run, view };
}

export function ChannelSettings({ store, streamId }: { store: Store; streamId: number }) {
  const stream: any = store.streams.get(streamId) ?? store.subs.get(streamId);
  if (!stream) return <p role="alert">There is no channel with this id, or it is not yours to see.</p>;
  const sub = store.subs.get(streamId);
  return (
    <>
      <h2>
        {stream.invite_only ? '🔒' : '#'}
        {stream.name}
      </h2>
      <p>
        <a href={hashOf(store, Narrow.channel(streamId))}>Go to the channel</a>{' '}
        <button type="button" onClick={() => void (sub ? call('DELETE', '/users/me/subscriptions', { subscriptions: [stream.name] }) : call('POST', '/users/me/subscriptions', { subscriptions: [{ name: stream.name }] })).catch((err) => alert(err.message))}>
          {sub ? 'Unsubscribe' : 'Subscribe'}
        </button>
      </p>
      {sub ? <Personal store={store} sub={sub} /> : <p>Subscribe to choose its colour and notifications.</p>}
      {store.canAdminister(streamId) && <Organization key={streamId} store={store} stream={stream} />}
    </>
  );
}

function Personal({ store, sub }: { store: Store; sub: Subscription }) {
  const { run, view } = useStatus();
  const s: any = sub;
  const toggle = (property: string, label: string, checked: boolean) => (
    <p class="field toggle">
      <label>
        <input type="checkbox" checked={checked} onChange={(e) => run(setProperty(sub.stream_id, property, (e.target as HTMLInputElement).checked))} /> {label}
      </label>
    </p>
  );
  return (
    <section aria-labelledby="channel-personal">
      <h3 id="channel-personal">Personal settings</h3>
      <p class="field">
        <label for="channel-color">Channel colour</label>
        <input id="channel-color" type="color" value={sub.color} onChange={(e) => run(setProperty(sub.stream_id, 'color', (e.target as HTMLInputElement).value))} />
      </p>
      {toggle('pin_to_top', 'Pin to the top of the channel list', !!sub.pin_to_top)}
      {toggle('is_muted', 'Mute this channel', !!sub.is_muted)}
      <fieldset class="field">
        <legend>Notifications</legend>
        {NOTIFICATIONS.map(([property, global, label]) => {
          const own = s[property] as boolean | null | undefined;
          const effective = own ?? !!store.settings[global];
          return (
            <label class="inline" key={property}>
              <input type="checkbox" checked={effective} onChange={(e) => run(setProperty(sub.stream_id, property, (e.target as HTMLInputElement).checked))} /> {label}
              {own === null || own === undefined ? <small> (your default)</small> : null}
            </label>
          );
        })}
        <p>
          <button type="button" onClick={() => run(call('POST', '/users/me/subscriptions/properties', { subscription_data: NOTIFICATIONS.map(([property, global]) => ({ stream_id: sub.stream_id, property, value: !!store.settings[global] })) }))}>
            Reset to my default notifications
          </button>
        </p>
      </fieldset>
      {view}
    </section>
  );
}

type Privacy = 'public' | 'web-public' | 'private-shared' | 'private-protected';

function privacyOf(stream: any): Privacy {
  if (stream.is_web_public) return 'web-public';
  if (!stream.invite_only) return 'public';
  return stream.history_public_to_subscribers ? 'private-shared' : 'private-protected';
}

const PRIVACY_PARAMS: Record<Privacy, Record<string, boolean>> = {
  public: { is_private: false, is_web_public: false, history_public_to_subscribers: true },
  'web-public': { is_private: false, is_web_public: true, history_public_to_subscribers: true },
  'private-shared': { is_private: true, is_web_public: false, history_public_to_subscribers: true },
  'private-protected': { is_private: true, is_web_public: false, history_public_to_subscribers: false },
};

function Organization({ store, stream }: { store: Store; stream: any }) {
  const { run, view } = useStatus();
  const id = stream.stream_id;
  // Web-public channels exist where the server, the organization and this person's role allow them.
  const webPublic = privacyOf(stream) === 'web-public' || (store.snapshot.server_web_public_streams_enabled && store.realm.enable_spectator_access && store.can('can_create_web_public_channel_group'));
  return (
    <section aria-labelledby="channel-org">
      <h3 id="channel-org">Channel settings</h3>
      <ActionForm label="Name and description" submit="Save" action={(d) => call('PATCH', `/streams/${id}`, { ...(text(d, 'new_name') !== stream.name ? { new_name: text(d, 'new_name') } : {}), description: text(d, 'description') })}>
        <Field label="Channel name" name="new_name" value={stream.name} required />
        <Field label="Description" name="description" value={stream.description} />
      </ActionForm>
      <p class="field">
        <label for="channel-privacy">Who can access the channel</label>
        <select id="channel-privacy" value={privacyOf(stream)} onChange={(e) => run(call('PATCH', `/streams/${id}`, PRIVACY_PARAMS[(e.target as HTMLSelectElement).value as Privacy]))}>
          {webPublic && <option value="web-public">Web-public: anyone on the internet can read it</option>}
          <option value="public">Public: members of the organization can join</option>
          <option value="private-shared">Private, shared history: subscribers see its whole history</option>
          <option value="private-protected">Private, protected history: subscribers see only what was sent after they joined</option>
        </select>
      </p>
      {view}
      <h3>Permissions</h3>
      {PERMISSIONS.map(([name, label]) => (
        <GroupSetting key={name} store={store} kind="stream" name={name} label={label} value={stream[name]} save={(update) => call('PATCH', `/streams/${id}`, { [name]: update })} />
      ))}
    </section>
  );
}
