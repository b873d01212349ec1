import {
  ConditionalCheckFailedException,
  ProvisionedThroughputExceededException,
  ThrottlingException,
} from '@aws-sdk/client-dynamodb';
import { ExecutionLimitExceeded, InvalidToken } from '@aws-sdk/client-sfn';
import { describe, expect, it } from 'vitest';
import {
  asStepError,
  isTransientServiceError,
  TRANSIENT_SERVICE_ERROR_NAME,
} from '../../../functions/adapters/aws/transient-error.js';
import { ConcurrencyConflictError, ModelFailedError } from '../../../functions/core/errors.js';

const meta = (httpStatusCode: number) => ({ $metadata: { httpStatusCode }, message: 'm' });

/** A service exception as the SDK builds it from an HTTP answer. */
const serviceError = (name: string, httpStatusCode: number, fault: 'client' | 'server') =>
  Object.assign(new Error(`${name} happened`), {
    name,
    $fault: fault,
    $metadata: { httpStatusCode },
  });

describe('transient AWS errors', () => {
  it.each([
    ['a DynamoDB throughput throttle', new ProvisionedThroughputExceededException(meta(400))],
    ['a DynamoDB throttle', new ThrottlingException(meta(400))],
    ['a 503 from any service', serviceError('ServiceUnavailable', 503, 'server')],
    ['a 500 from any service', serviceError('InternalServerError', 500, 'server')],
    ['a Step Functions throttle', serviceError('ThrottlingException', 400, 'client')],
    ['a Bedrock throttle', serviceError('ThrottlingException', 429, 'client')],
    ['a KMS throttle', serviceError('ThrottlingException', 400, 'client')],
    ['a socket reset', Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' })],
    ['an SDK timeout', Object.assign(new Error('timed out'), { name: 'TimeoutError' })],
  ])('%s is retried by the state machine as TransientServiceError', (_, error) => {
    expect(isTransientServiceError(error)).toBe(true);
    const mapped = asStepError(error) as Error;
    expect(mapped.name).toBe(TRANSIENT_SERVICE_ERROR_NAME);
    expect(mapped.message).toContain(error.name);
    expect(mapped.cause).toBe(error);
  });

  it.each([
    ['a failed condition', new ConditionalCheckFailedException(meta(400))],
    ['an invalid token', new InvalidToken(meta(400))],
    [
      'too many executions (a quota, not a passing throttle)',
      new ExecutionLimitExceeded(meta(400)),
    ],
    [
      'a domain conflict (retried under its own name)',
      new ConcurrencyConflictError('lost the race'),
    ],
    [
      'a failed model call whose cause was a reset',
      new ModelFailedError('no', { cause: Object.assign(new Error('x'), { code: 'ECONNRESET' }) }),
    ],
    ['a plain bug', new TypeError('undefined is not a function')],
  ])('%s is left as it is', (_, error) => {
    expect(isTransientServiceError(error)).toBe(false);
    expect(asStepError(error)).toBe(error);
  });
});
