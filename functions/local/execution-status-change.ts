import { randomUUID } from 'node:crypto';
import type { DescribeExecutionOutput } from '@aws-sdk/client-sfn';

/** The ends the cloud's rule passes to the reconciler (cdk/constructs/execution-reconciler.ts). */
const RECONCILED = new Set(['FAILED', 'TIMED_OUT', 'ABORTED']);

/**
 * The EventBridge event the cloud delivers for an execution that ended ("Step Functions Execution
 * Status Change"), built from the local engine's description of it; undefined for an end the
 * rule does not pass (SUCCEEDED).
 */
export const executionStatusChange = (
  execution: DescribeExecutionOutput,
  region: string,
  accountId: string
) => {
  const status = execution.status ?? '';
  if (!RECONCILED.has(status)) return undefined;
  return {
    version: '0',
    id: randomUUID(),
    'detail-type': 'Step Functions Execution Status Change',
    source: 'aws.states',
    account: accountId,
    time: (execution.stopDate ?? new Date()).toISOString(),
    region,
    resources: [execution.executionArn],
    detail: {
      executionArn: execution.executionArn,
      stateMachineArn: execution.stateMachineArn,
      name: execution.name,
      status,
      startDate: execution.startDate?.getTime() ?? null,
      stopDate: execution.stopDate?.getTime() ?? null,
      input: execution.input ?? null,
      output: execution.output ?? null,
      error: execution.error ?? null,
      cause: execution.cause ?? null,
    },
  };
};

/** The event an EventBridge schedule delivers (the reconciler's pending-start sweep), at `time`. */
export const pendingStartSweepEvent = (time: Date) => ({
  version: '0',
  id: randomUUID(),
  'detail-type': 'Scheduled Event',
  source: 'aws.events',
  account: '000000000000',
  time: time.toISOString(),
  region: 'us-east-1',
  resources: [],
  detail: {},
});
