import middy from '@middy/core';
import * as z from 'zod';
import { asStepError } from '../adapters/aws/transient-error.js';
import { parseExecutionName } from '../adapters/stepfunctions/turn-executions.js';
import { lambdaLoopRuntime } from '../composition/lambda/loop.js';
import type { Runtime } from '../composition/runtime.js';
import { errorFields } from '../core/ports/logger.js';
import { reconcileExecutionEnd } from '../service/reconcile.js';

/**
 * What EventBridge delivers for the rule on the turn state machine (detail-type "Step Functions
 * Execution Status Change"), as far as the reconciler reads it. The local engine sends the same.
 */
export const ExecutionStatusChangeSchema = z.object({
  source: z.literal('aws.states'),
  'detail-type': z.literal('Step Functions Execution Status Change'),
  detail: z.object({
    executionArn: z.string().min(1),
    name: z.string().min(1),
    status: z.enum(['FAILED', 'TIMED_OUT', 'ABORTED']),
    error: z.string().nullish(),
    cause: z.string().nullish(),
  }),
});
export type ExecutionStatusChange = z.infer<typeof ExecutionStatusChangeSchema>;

/**
 * The reconciler: a turn execution ended FAILED, TIMED_OUT or ABORTED, and the task it drove
 * must not be left waiting on it. A failure is thrown (transient AWS errors under the name
 * EventBridge's retries and the dead-letter queue expect), and EventBridge delivers again.
 */
export const createReconcileHandler = (
  runtime: () => Pick<Runtime, 'loop' | 'executions' | 'logger'>
) =>
  middy(async (raw: unknown) => {
    const { logger } = runtime();
    const { detail } = ExecutionStatusChangeSchema.parse(raw);
    const named = parseExecutionName(detail.name);
    const log = logger.child({ execution: detail.name, status: detail.status });
    if (named === undefined) {
      log.warn('execution end ignored: not a turn execution name');
      return { action: 'ignored', why: 'not a turn execution' };
    }
    try {
      const result = await reconcileExecutionEnd(runtime(), {
        ...named,
        status: detail.status,
        error: detail.error ?? undefined,
        cause: detail.cause ?? undefined,
      });
      log.info('execution end reconciled', { taskId: named.taskId, ...result });
      return result;
    } catch (error) {
      log.error('execution end not reconciled', { taskId: named.taskId, ...errorFields(error) });
      throw asStepError(error);
    }
  });

export const handler = createReconcileHandler(lambdaLoopRuntime);
