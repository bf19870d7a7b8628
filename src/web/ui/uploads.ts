import { ApiError, call } from '../api.js';

/**
 * A file going up through POST /user_uploads, with its progress; when it is stored, the
 * Markdown link to it goes into the message, as the reference's compose box writes it.
 */
export interface Upload {
  id: number;
  name: string;
  progress: number;
  state: 'uploading' | 'done' | 'failed';
  error?: string;
}

let next = 0;

export function startUpload(file: File, onChange: (u: Upload) => void, onDone: (markdown: string) => void): Upload {
  const up: Upload = { id: ++next, name: file.name || 'pasted file', progress: 0, state: 'uploading' };
  const body = new FormData();
  body.append('file', file, up.name);
  call<{ url: string; filename?: string }>('POST', '/user_uploads', {}, { body, onProgress: (f) => onChange({ ...up, progress: f }) }).then(
    (res) => {
      onChange({ ...up, progress: 1, state: 'done' });
      onDone(`[${(res.filename ?? up.name).replace(/[[\]]/g, '')}](${res.url})`);
    },
    (err) => onChange({ ...up, state: 'failed', error: err instanceof ApiError ? err.message : String(err) }),
  );
  return up;
}
