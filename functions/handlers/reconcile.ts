import middy from '@middy/core';
import * as z from 'zod';
import { asStepError } from '../adapters/aws/transient-error.js';
import { parseExecutionName } from '../adapters/stepfunctions/turn-executions.js';
import { lambdaLoopRuntime } from '../composition/lambda/loop.js';
import type { Runtime } from '../composition/runtime.js';
import { errorFields } from '../core/ports/logger.js';
import { sweepPendingStarts } from '../service/pending-starts.js';
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

/** What the pending-start schedule delivers (an EventBridge scheduled event; `npm start`'s timer sends the same). */
export const PendingStartSweepEventSchema = z.object({
  source: z.literal('aws.events'),
  'detail-type': z.literal('Scheduled Event'),
  time: z.iso.datetime(),
});

const ReconcilerEventSchema = z.union([ExecutionStatusChangeSchema, PendingStartSweepEventSchema]);

/**
 * The reconciler: a turn execution ended FAILED, TIMED_OUT or ABORTED, and the task it drove
 * must not be left waiting on it; or the schedule asks for the generations whose start was lost
 * (`sweepPendingStarts`). A failure is thrown (transient AWS errors under the name EventBridge's
 * retries and the dead-letter queue expect), and EventBridge delivers again.
 */
export const createReconcileHandler = (
  runtime: () => Pick<Runtime, 'loop' | 'executions' | 'logger'>
) =>
  middy(async (raw: unknown) => {
    const { logger } = runtime();
    const event = ReconcilerEventSchema.parse(raw);
    if (event.source === 'aws.events') return sweep(runtime(), new Date(event.time));
    const { detail } = event;
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

const sweep = async (
  runtime: Pick<Runtime, 'loop' | 'executions' | 'logger'>,
  now: Date
): Promise<{ action: 'swept'; started: number; running: number }> => {
  const log = runtime.logger.child({ sweep: 'pending starts' });
  try {
    const { started, running } = await sweepPendingStarts(runtime, now);
    // Each is a generation someone committed and did not start (or that ended before writing).
    for (const lost of started) log.warn('pending generation started by the sweep', { ...lost });
    if (started.length + running > 0)
      log.info('pending starts swept', { started: started.length, running });
    return { action: 'swept', started: started.length, running };
  } catch (error) {
    log.error('pending starts not swept', errorFields(error));
    throw asStepError(error);
  }
};

export const handler = createReconcileHandler(lambdaLoopRuntime);
