import middy from '@middy/core';
import * as z from 'zod';
import { parseExecutionName } from '../adapters/stepfunctions/turn-executions.js';
import type { ExecutionHistories } from '../composition/audit.js';
import { lambdaArchiveRuntime } from '../composition/lambda/archive.js';
import type { ArchiveOutcome } from '../core/audit/archive.js';
import type { Logger } from '../core/ports/logger.js';
import { archiveExecution } from '../service/archive-execution.js';

/** What EventBridge delivers when a Step Functions execution changes status (the rule's filter). */
export const ExecutionStatusChangeSchema = z.object({
  'detail-type': z.literal('Step Functions Execution Status Change'),
  detail: z.object({
    executionArn: z.string().min(1),
    status: z.enum(['RUNNING', 'SUCCEEDED', 'FAILED', 'TIMED_OUT', 'ABORTED', 'PENDING_REDRIVE']),
  }),
});

/**
 * Archives a closed turn execution's history (docs/deploy.md, "Auditing"): the cloud's
 * EventBridge rule and the local engine's close callback both end here. An execution of another
 * state machine, or still running, is left alone.
 */
export const archiveClosedExecution = async (
  runtime: { logger: Logger },
  audit: ExecutionHistories,
  executionArn: string
): Promise<ArchiveOutcome | 'not ours'> => {
  const execution = parseExecutionName(executionArn);
  if (execution === undefined) return 'not ours';
  const outcome = await archiveExecution(audit, execution);
  runtime.logger.info('execution history archive', { executionArn, outcome });
  return outcome;
};

export const createArchiveHandler = (
  runtime: () => { logger: Logger; histories: ExecutionHistories }
) =>
  middy(async (event: unknown): Promise<{ outcome: string }> => {
    const parsed = ExecutionStatusChangeSchema.safeParse(event);
    if (!parsed.success) {
      runtime().logger.warn('not an execution status change: ignored', {
        issues: parsed.error.issues.length,
      });
      return { outcome: 'ignored' };
    }
    if (parsed.data.detail.status === 'RUNNING' || parsed.data.detail.status === 'PENDING_REDRIVE')
      return { outcome: 'not closed' };
    const outcome = await archiveClosedExecution(
      runtime(),
      runtime().histories,
      parsed.data.detail.executionArn
    );
    return { outcome };
  });

export const handler = createArchiveHandler(lambdaArchiveRuntime);
