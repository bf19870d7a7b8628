/**
 * The web app's only way to the server: the public API under /json/ (the twin of /api/v1 that
 * takes the session cookie), exactly the endpoints every other client uses. Writes carry the
 * CSRF token the login left in a readable cookie, in the X-CSRFToken header.
 */

export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string,
    readonly body: Record<string, unknown>,
  ) {
    super(message);
  }
}

/** A request that never reached the server (offline, the server restarting). */
export class NetworkError extends Error {}

let token: string | null = null;

/**
 * The session's CSRF token, read from its cookie once: document.cookie is a round trip to the
 * browser's cookie store on every read. A write refused for its token (a login in another tab
 * started a new session) reads it again and is tried once more.
 */
export function csrfToken(fresh = false): string {
  if (token === null || fresh) {
    const m = /(?:^|;\s*)(?:__Host-)?csrftoken=([^;]+)/.exec(document.cookie);
    token = m ? decodeURIComponent(m[1]) : '';
  }
  return token;
}

type Params = Record<string, unknown>;

/** Parameters as the server reads them: text as it is, everything else as JSON text. */
function encode(params: Params): URLSearchParams {
  const form = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) form.set(k, typeof v === 'string' ? v : JSON.stringify(v));
  return form;
}

/** The session has ended (logged out elsewhere, expired): back to the login page. */
function toLogin(): never {
  const next = location.pathname + location.hash;
  location.assign(`/login/?next=${encodeURIComponent(next)}`);
  throw new ApiError('Not logged in', 401, 'UNAUTHORIZED', {});
}

export async function call<T = any>(method: string, path: string, params: Params = {}, opts: { signal?: AbortSignal; body?: FormData; onProgress?: (fraction: number) => void } = {}): Promise<T> {
  const write = method !== 'GET';
  let url = `/json${path}`;
  const headers: Record<string, string> = { accept: 'application/json' };
  if (write) headers['x-csrftoken'] = csrfToken();
  if (opts.body) return upload<T>(url, opts.body, headers, opts.onProgress);
  let body: URLSearchParams | undefined;
  if (write) body = encode(params);
  else if (Object.keys(params).length) url += `?${encode(params)}`;
  let res: Response;
  try {
    res = await fetch(url, { method, headers, body, credentials: 'same-origin', signal: opts.signal });
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    throw new NetworkError(String(err));
  }
  const text = await res.text();
  if (write && res.status === 403 && headers['x-csrftoken'] !== csrfToken(true) && /"CSRF_FAILED"/.test(text)) return call<T>(method, path, params, opts);
  return answer<T>(res.status, text);
}

function answer<T>(status: number, text: string): T {
  let data: any;
  try {
    data = JSON.parse(text);
  } catch {
    if (status >= 500 || status === 0) throw new NetworkError(`HTTP ${status}`);
    throw new ApiError(`HTTP ${status}`, status, 'BAD_RESPONSE', {});
  }
  // No session any more, or a deactivated account or organization: the login page says which.
  if (status === 401) toLogin();
  if (data.result !== 'success') {
    if (status >= 500) throw new NetworkError(data.msg);
    throw new ApiError(data.msg ?? `HTTP ${status}`, status, data.code ?? 'BAD_REQUEST', data);
  }
  return data as T;
}

/** A multipart upload, through XMLHttpRequest: fetch reports no upload progress. */
function upload<T>(url: string, body: FormData, headers: Record<string, string>, onProgress?: (fraction: number) => void): Promise<T> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', url);
    for (const [k, v] of Object.entries(headers)) xhr.setRequestHeader(k, v);
    xhr.upload.onprogress = (e) => e.lengthComputable && onProgress?.(e.loaded / e.total);
    xhr.onerror = () => reject(new NetworkError('upload failed'));
    xhr.onload = () => {
      try {
        resolve(answer<T>(xhr.status, xhr.responseText));
      } catch (err) {
        reject(err);
      }
    };
    xhr.send(body);
  });
}
