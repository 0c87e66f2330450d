/**
 * Logging (pino): JSON lines for machines, or one readable line per event in a terminal
 * (`LOG_FORMAT=pretty`, pino-pretty in this process). Secrets are redacted by path, wherever a log
 * call puts them.
 */
import { type Logger, pino } from 'pino';
import pretty from 'pino-pretty';

export type { Logger };

export type LogFormat = 'json' | 'pretty';

/** The fields of the one-per-request line (http/access-log.ts) that the pretty line shows inline. */
const REQUEST_LINE_FIELDS = ['method', 'route', 'status', 'duration_ms', 'bytes', 'principal', 'graphql_operation'];

/** `GET /api/v1/items/:id 200 3.1 ms 1520 B customer:7 Item` — the rest follows as JSON. */
function prettyMessage(log: Record<string, unknown>, messageKey: string): string {
  if (log.status === undefined || log.route === undefined) return String(log[messageKey] ?? '');
  const parts = [log.method, log.route, log.status, `${log.duration_ms} ms`, `${log.bytes} B`];
  if (log.principal) parts.push(log.principal);
  if (log.graphql_operation) parts.push(log.graphql_operation);
  return parts.join(' ');
}

export function createLogger(level: string, format: LogFormat = 'json'): Logger {
  const options = {
    level,
    base: undefined,
    redact: {
      paths: [
        'password',
        '*.password',
        'authorization',
        '*.authorization',
        'headers.authorization',
        'secret',
        '*.secret',
        'session_key',
        '*.session_key',
      ],
      censor: '[redacted]',
    },
  };
  if (format === 'json') return pino({ ...options, timestamp: pino.stdTimeFunctions.isoTime });
  return pino(
    options,
    pretty({
      translateTime: 'SYS:HH:MM:ss.l',
      singleLine: true,
      ignore: REQUEST_LINE_FIELDS.join(','),
      messageFormat: prettyMessage,
      // Synchronous like pino's own stdout: a line is out before the process exits (start-up errors).
      sync: true,
    }),
  );
}
