import { useState } from 'preact/hooks';
import { ApiError } from '../api.js';
import type { GroupSettingValue } from '../store/groups.js';
import type { Store } from '../store/store.js';

/**
 * A group-valued permission ("who can post", "who can join"...) as a choice of group: the
 * system groups the setting allows (server_supported_permission_settings, from /register) and
 * the groups people made. A value the server holds as an anonymous group (people and groups
 * listed directly) shows as such and stays until another is chosen. The change goes out as
 * the API's {new, old} pair, so a value someone else changed meanwhile is not overwritten.
 */
export type SettingKind = 'realm' | 'stream' | 'group';

interface Option {
  value: string;
  label: string;
}

function options(store: Store, kind: SettingKind, name: string): Option[] {
  const rules = store.snapshot.server_supported_permission_settings?.[kind]?.[name] ?? {};
  const allowedSystem: string[] = rules.allowed_system_groups ?? [];
  const out: Option[] = [];
  for (const g of store.groups.byId.values()) {
    if (!g.is_system_group || g.deactivated) continue;
    if (allowedSystem.length && !allowedSystem.includes(g.name)) continue;
    if (g.name === 'role:internet' && !rules.allow_internet_group) continue;
    if (g.name === 'role:nobody' && rules.allow_nobody_group === false) continue;
    if (g.name === 'role:everyone' && rules.allow_everyone_group === false) continue;
    out.push({ value: String(g.id), label: store.groups.label(g.id) });
  }
  if (!rules.require_system_group) for (const g of store.groups.named()) out.push({ value: String(g.id), label: g.name });
  return out;
}

/** A setting's value in words: a group's name, or who an anonymous group lists. */
export function describeValue(store: Store, value: GroupSettingValue | undefined): string {
  if (value === undefined) return 'Unknown';
  if (typeof value === 'number') return store.groups.label(value);
  const people = value.direct_members.map((id) => store.userName(id));
  const groups = value.direct_subgroups.map((id) => store.groups.label(id));
  return [...people, ...groups].join(', ') || 'Nobody';
}

export function GroupSetting(props: { store: Store; kind: SettingKind; name: string; label: string; value: GroupSettingValue | undefined; disabled?: boolean; save: (update: { new: GroupSettingValue; old: GroupSettingValue | undefined }) => Promise<unknown> }) {
  const { store, value } = props;
  const [status, setStatus] = useState<{ ok: boolean; text: string } | null>(null);
  const id = `setting-${props.kind}-${props.name}`;
  const opts = options(store, props.kind, props.name);
  const current = typeof value === 'number' ? String(value) : 'custom';
  if (typeof value === 'number' && !opts.some((o) => o.value === current)) opts.push({ value: current, label: store.groups.label(value) });
  return (
    <p class="field group-setting">
      <label for={id}>{props.label}</label>
      <select
        id={id}
        value={current}
        disabled={props.disabled}
        onChange={(e) => {
          const chosen = (e.target as HTMLSelectElement).value;
          if (chosen === 'custom') return;
          props.save({ new: Number(chosen), old: value }).then(
            () => setStatus({ ok: true, text: 'Saved.' }),
            (err) => setStatus({ ok: false, text: err instanceof ApiError ? err.message : String(err) }),
          );
        }}
      >
        {current === 'custom' && <option value="custom">{describeValue(store, value)}</option>}
        {opts.map((o) => (
          <option value={o.value} key={o.value}>
            {o.label}
          </option>
        ))}
      </select>
      <span class={status?.ok === false ? 'error' : 'ok'} role={status?.ok === false ? 'alert' : 'status'}>
        {status?.text ?? ''}
      </span>
    </p>
  );
}
