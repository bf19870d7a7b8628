import { useState } from 'preact/hooks';
import { call } from '../api.js';
import type { Store } from '../store/store.js';

/**
 * Which key sends, as the reference's compose box shows and switches it (its help page
 * "Configure send message keys"): with enter_sends (a new organization's default here), Enter
 * sends and Ctrl+Enter breaks a line; without it, Enter breaks a line and Ctrl+Enter sends;
 * Shift+Enter always breaks a line.
 * The hint beside Send names the sending key and switches to the other in one click; the send
 * options menu offers the same choice as the reference's two radio buttons. The setting is the
 * person's (PATCH /settings), so every device of theirs follows it.
 */
export const MOD_KEY = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform) ? '⌘' : 'Ctrl';

/** The reference's should_enter_send: what an Enter with these modifiers does. */
export function enterAction(enterSends: boolean, e: { shiftKey: boolean; ctrlKey: boolean; metaKey: boolean; altKey: boolean }): 'send' | 'newline' | 'default' {
  const otherModifier = e.ctrlKey || e.metaKey || e.altKey;
  if (enterSends) {
    if (!e.shiftKey && !otherModifier) return 'send';
    // Ctrl+Enter breaks a line, which a textarea does not do by itself.
    return otherModifier && !e.shiftKey ? 'newline' : 'default';
  }
  return otherModifier ? 'send' : 'default';
}

const setEnterSends = (value: boolean) => call('PATCH', '/settings', { enter_sends: value });

function Keys({ enter }: { enter: boolean }) {
  return enter ? (
    <kbd>Enter</kbd>
  ) : (
    <>
      <kbd>{MOD_KEY}</kbd>+<kbd>Enter</kbd>
    </>
  );
}

export function SendKeys({ store, onSchedule }: { store: Store; onSchedule: () => void }) {
  const [open, setOpen] = useState(false);
  const enterSends = !!store.settings.enter_sends;
  const otherKey = enterSends ? `${MOD_KEY}+Enter` : 'Enter';
  return (
    <span class="send-keys">
      <button type="button" class="send-hint" id="send-hint" aria-label={`${enterSends ? 'Enter' : `${MOD_KEY}+Enter`} to send: switch to ${otherKey}`} title={`Switch to ${otherKey} to send`} onClick={() => void setEnterSends(!enterSends)}>
        <Keys enter={enterSends} /> to send
      </button>
      <button type="button" class="send-options" aria-label="Send options" aria-expanded={open} aria-controls="send-menu" onClick={() => setOpen(!open)}>
        ⋮
      </button>
      {open && (
        <div class="menu-list send-menu" id="send-menu" role="group" aria-label="Send options" onKeyDown={(e) => e.key === 'Escape' && setOpen(false)}>
          <fieldset class="enter-choices">
            <legend class="visually-hidden">Enter to send choices</legend>
            {[true, false].map((choice) => (
              <label class="enter-choice" key={String(choice)}>
                <input type="radio" name="enter_sends_choice" checked={enterSends === choice} onChange={() => void setEnterSends(choice).then(() => setOpen(false))} />
                <span>
                  Press <Keys enter={choice} /> to send
                  <br />
                  <small>
                    Press {choice ? <Keys enter={false} /> : <Keys enter />} to add a new line
                  </small>
                </span>
              </label>
            ))}
          </fieldset>
          <button type="button" onClick={() => (setOpen(false), onSchedule())}>
            Schedule message
          </button>
          <a href="#drafts" onClick={() => setOpen(false)}>
            View drafts{store.drafts.length ? ` (${store.drafts.length})` : ''}
          </a>
        </div>
      )}
    </span>
  );
}
