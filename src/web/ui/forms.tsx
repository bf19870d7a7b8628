import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { ApiError } from '../api.js';

/**
 * A settings form: runs its action on submit and says what happened, in a live region. The
 * server decides what is allowed; its error message is shown as it is.
 */
export function ActionForm(props: { label: string; submit: string; action: (data: FormData) => Promise<unknown>; children: ComponentChildren; id?: string; reset?: boolean; done?: string }) {
  const [status, setStatus] = useState<{ ok: boolean; text: string } | null>(null);
  const [busy, setBusy] = useState(false);
  return (
    <form
      class="action-form"
      aria-label={props.label}
      id={props.id}
      onSubmit={(e) => {
        e.preventDefault();
        const form = e.currentTarget as HTMLFormElement;
        setBusy(true);
        props.action(new FormData(form)).then(
          () => {
            setBusy(false);
            setStatus({ ok: true, text: props.done ?? 'Saved.' });
            if (props.reset) form.reset();
          },
          (err) => {
            setBusy(false);
            setStatus({ ok: false, text: err instanceof ApiError ? err.message : String(err) });
          },
        );
      }}
    >
      {props.children}
      <button type="submit" disabled={busy}>
        {props.submit}
      </button>
      <p class={status?.ok === false ? 'error' : 'ok'} role={status?.ok === false ? 'alert' : 'status'}>
        {status?.text ?? ''}
      </p>
    </form>
  );
}

/**
 * A form field showing `value` until the person edits it (the input's default, not its value):
 * the view re-renders with every event, and an input bound to `value` would be reset to it each
 * time, dropping what was typed before it was submitted.
 */
export function Field(props: { label: string; name: string; type?: string; value?: string; required?: boolean; placeholder?: string; autocomplete?: string; minLength?: number }) {
  const id = `field-${props.name}`;
  return (
    <p class="field">
      <label for={id}>{props.label}</label>
      <input id={id} name={props.name} type={(props.type ?? 'text') as 'text'} defaultValue={props.value} required={props.required} placeholder={props.placeholder} autoComplete={props.autocomplete} minLength={props.minLength} />
    </p>
  );
}

export const text = (data: FormData, name: string) => String(data.get(name) ?? '');
