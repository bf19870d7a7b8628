import { pino, type Logger } from 'pino';

/**
 * Structured logs (pino), JSON lines on stdout, quiet by default: `warn` unless the config or
 * STOA_LOG_LEVEL asks for more. Workers call setLogLevel with the level the main thread was
 * configured with.
 *
 * Two streams of lines are written whatever the level (only `silent` stops them), since an
 * operator needs them to see what happened:
 *   - `accessLog`: one line per request (front/request-log.ts), unless `accessLog: false`;
 *   - `auditLog`: logins, failed logins, account and role changes, invitations, exports,
 *     backups, settings changes (api-kit/audit.ts, and the admin CLI when it works without a
 *     server, on stderr: its stdout is its answer).
 * Neither ever carries a secret: no passwords, keys, tokens, query strings or headers.
 */
export const log: Logger = pino({ level: 'warn', base: undefined });

export const accessLog: Logger = log.child({ kind: 'access' }, { level: 'info' });
export let auditLog: Logger = log.child({ kind: 'audit' }, { level: 'info' });

export function setLogLevel(level: string, access = true): void {
  log.level = level;
  auditLog.level = level === 'silent' ? 'silent' : 'info';
  accessLog.level = level === 'silent' || !access ? 'silent' : 'info';
}

/** Audit lines on stderr (the CLI's stdout is what it answers). */
export function auditToStderr(): void {
  auditLog = pino({ level: auditLog.level, base: { kind: 'audit' } }, pino.destination({ fd: 2, sync: true }));
}
