/**
 * Structured logs: one JSON object per line, with the task id and execution id in every entry
 * of a handler invocation, so CloudWatch Logs Insights (or `grep` locally) can follow one task.
 * Built by a composition root (`functions/adapters/system/logger.ts`); handlers, the service and
 * the local runtime are given one.
 */
export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
}

/** What a log line says of an error: its name, message and code, never its stack or payload. */
export const errorFields = (error: unknown): Record<string, unknown> =>
  error instanceof Error
    ? {
        errorName: error.name,
        errorMessage: error.message,
        code: (error as { code?: unknown }).code,
      }
    : { errorMessage: String(error) };
