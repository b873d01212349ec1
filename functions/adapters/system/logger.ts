import { redactSecrets } from '../../core/intake/redact.js';
import type { Logger } from '../../core/ports/logger.js';

/**
 * Structured logs: one JSON object per line, with the task id and execution id in every entry
 * of a handler invocation so CloudWatch Logs Insights (or `grep` locally) can follow one task.
 */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export const createLogger = (options: {
  level: LogLevel;
  fields?: Record<string, unknown>;
  write?: (line: string) => void;
  /** Configured secrets (tokens, keys): masked, like any bearer token or key, in every line. */
  secrets?: readonly string[];
}): Logger => {
  const write = options.write ?? ((line: string) => process.stdout.write(`${line}\n`));
  const base = options.fields ?? {};
  const emit = (level: LogLevel, message: string, fields: Record<string, unknown> = {}) => {
    if (ORDER[level] < ORDER[options.level]) return;
    const line = JSON.stringify({
      time: new Date().toISOString(),
      level,
      message,
      ...base,
      ...fields,
    });
    write(redactSecrets(line, options.secrets));
  };
  return {
    debug: (message, fields) => emit('debug', message, fields),
    info: (message, fields) => emit('info', message, fields),
    warn: (message, fields) => emit('warn', message, fields),
    error: (message, fields) => emit('error', message, fields),
    child: (fields) => createLogger({ ...options, fields: { ...base, ...fields } }),
  };
};
