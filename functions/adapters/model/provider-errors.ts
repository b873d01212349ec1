import { ModelFailedError, ModelRetryableError } from '../../core/errors.js';

/** HTTP statuses worth a retry: throttling, timeouts and the provider's own faults. */
const RETRYABLE_STATUSES = new Set([408, 409, 425, 429, 500, 502, 503, 504, 529]);

/** Error names of SDK-level failures that never reached an answer (network, timeout). */
const TRANSIENT_NAMES =
  /timeout|timed out|timedout|connection|econnreset|econnrefused|socket|network|throttl|serviceunavailable|internalserver/i;

const statusOf = (error: unknown): number | undefined => {
  const candidate = error as {
    status?: unknown;
    statusCode?: unknown;
    $metadata?: { httpStatusCode?: unknown };
  };
  for (const value of [
    candidate?.status,
    candidate?.statusCode,
    candidate?.$metadata?.httpStatusCode,
  ]) {
    if (typeof value === 'number') return value;
  }
  return undefined;
};

/**
 * A provider SDK's failure as the model port's typed error: retryable (the state machine retries
 * with backoff) for throttling, 5xx, timeouts and connection faults; failed (the task fails with
 * this reason) for everything else. The message never carries the request or a credential.
 */
export const toModelError = (provider: string, error: unknown): Error => {
  if (error instanceof ModelFailedError || error instanceof ModelRetryableError) return error;
  const status = statusOf(error);
  const name = (error as Error)?.name ?? 'Error';
  const message = ((error as Error)?.message ?? String(error)).slice(0, 500);
  const reason = `${provider}${status === undefined ? '' : ` ${status}`}: ${message}`;
  if (
    (status !== undefined && RETRYABLE_STATUSES.has(status)) ||
    (status === undefined && TRANSIENT_NAMES.test(`${name} ${message}`))
  ) {
    return new ModelRetryableError(reason, { cause: error });
  }
  return new ModelFailedError(reason, { cause: error });
};
