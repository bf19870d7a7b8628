import { pino, type Logger } from 'pino';

/**
 * Structured logs (pino), quiet by default: `warn` unless the config or STOA_LOG_LEVEL asks for
 * more. Workers call setLogLevel with the level the main thread was configured with.
 */
export const log: Logger = pino({ level: 'warn', base: undefined });

export function setLogLevel(level: string): void {
  log.level = level;
}
