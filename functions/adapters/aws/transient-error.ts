import { isServerError, isThrottlingError, isTransientError } from '@smithy/core/retry';
import { isHarnessError } from '../../core/errors.js';

/**
 * What a Lambda throws when an AWS call failed for a reason that passes (a throttle, a 5xx, a
 * timeout) after the SDK's own retries: the state machine's Retry matches this name and waits
 * longer than the SDK did, instead of failing the task for good.
 */
export class TransientServiceError extends Error {
  override readonly name = 'TransientServiceError';
}

/** The error name the turn state machine retries; `cdk/` reads it. */
export const TRANSIENT_SERVICE_ERROR_NAME = 'TransientServiceError';

/** Whether an AWS SDK error is one the SDK itself would retry: throttling, transient or 5xx. */
export const isTransientServiceError = (error: unknown): boolean => {
  if (!(error instanceof Error) || error instanceof TransientServiceError) return false;
  // The domain's errors say themselves whether they are retryable (RETRYABLE_ERROR_NAMES).
  if (isHarnessError(error)) return false;
  // The SDK's classifiers read `$metadata`, `$retryable` and the name of a service exception.
  const sdkError = error as Parameters<typeof isThrottlingError>[0];
  if (sdkError.$metadata === undefined && sdkError.$retryable === undefined) {
    // Not from an AWS client: only the network failures the SDK treats as transient.
    return isTransientError(sdkError);
  }
  return isThrottlingError(sdkError) || isTransientError(sdkError) || isServerError(sdkError);
};

/**
 * The error as the state machine should see it: a transient AWS failure becomes
 * `TransientServiceError` (its message names the original), anything else is unchanged.
 */
export const asStepError = (error: unknown): unknown =>
  isTransientServiceError(error)
    ? new TransientServiceError(`${(error as Error).name}: ${(error as Error).message}`, {
        cause: error,
      })
    : error;
