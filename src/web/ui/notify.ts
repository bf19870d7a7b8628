import type { Store } from '../store/store.js';
import type { Message } from '../types.js';

/**
 * Browser notifications for direct messages and mentions, with the person's consent (the
 * Notification API asks once, from a click in the settings), while the window is not in
 * focus; an optional sound. The person's notification settings (/register) decide which.
 */
let audio: AudioContext | null = null;

function beep(): void {
  try {
    audio ??= new AudioContext();
    const osc = audio.createOscillator();
    const gain = audio.createGain();
    gain.gain.value = 0.05;
    osc.frequency.value = 880;
    osc.connect(gain).connect(audio.destination);
    osc.start();
    osc.stop(audio.currentTime + 0.15);
  } catch {
    // No audio: nothing to play.
  }
}

export function notifyOnMessage(store: Store, msg: Message): void {
  if (msg.sender_id === store.selfId || msg.flags.includes('read') || store.mutedUsers.has(msg.sender_id)) return;
  const mentioned = msg.flags.some((f) => f === 'mentioned' || f.endsWith('wildcard_mentioned') || f === 'has_alert_word');
  const dm = msg.type === 'private';
  const s = store.settings;
  const wantsDesktop = (dm && s.enable_desktop_notifications !== false) || (mentioned && s.enable_desktop_notifications !== false);
  const wantsSound = (dm || mentioned) && s.enable_sounds !== false;
  if (!wantsDesktop && !wantsSound) return;
  if (document.hasFocus()) return;
  if (wantsSound) beep();
  if (!wantsDesktop || typeof Notification === 'undefined' || Notification.permission !== 'granted') return;
  const where = dm ? 'Direct message' : `#${store.streamName(msg.stream_id!)} > ${msg.subject}`;
  const text = new DOMParser().parseFromString(msg.content, 'text/html').body.textContent ?? '';
  const n = new Notification(`${msg.sender_full_name} (${where})`, { body: text.slice(0, 300), tag: String(msg.id), icon: msg.avatar_url ?? undefined });
  n.onclick = () => {
    window.focus();
    n.close();
  };
}

export async function askNotificationPermission(): Promise<string> {
  if (typeof Notification === 'undefined') return 'unsupported';
  return Notification.requestPermission();
}
