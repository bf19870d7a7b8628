import { useState } from 'preact/hooks';

/**
 * A person's picture: an avatar uploaded to this server (`/user_avatars/...`), or their initial.
 * The app asks /register and /messages for client_gravatar, so a person without an upload comes
 * with no URL at all; any URL naming another host is drawn as the initial too. Nothing is loaded
 * from elsewhere (the page's CSP refuses images from other hosts anyway).
 */
export function avatarSrc(url: string | null | undefined): string | null {
  if (!url) return null;
  try {
    const u = new URL(url, location.href);
    return u.origin === location.origin ? u.pathname + u.search : null;
  } catch {
    return null;
  }
}

export function Avatar({ url, name, size = 36, label }: { url: string | null | undefined; name: string; size?: number; label?: string }) {
  const src = avatarSrc(url);
  const [failed, setFailed] = useState<string | null>(null);
  if (!src || failed === src)
    return (
      <span class="avatar initial" style={size !== 36 ? { width: `${size}px`, height: `${size}px` } : undefined} role={label ? 'img' : undefined} aria-label={label} aria-hidden={label ? undefined : 'true'}>
        {name.trim().slice(0, 1).toUpperCase() || '?'}
      </span>
    );
  return <img class="avatar" src={src} alt={label ?? ''} width={size} height={size} loading="lazy" onError={() => setFailed(src)} />;
}
