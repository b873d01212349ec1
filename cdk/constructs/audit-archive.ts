/**
 * Keeps the auditor's record as long as the task (docs/deploy.md, "Auditing"): Step Functions
 * deletes a Standard execution's history 90 days after it closes, so when a turn execution
 * closes, an EventBridge rule hands it to the archive function, which copies the whole history
 * into the task's partition of the table (encrypted with it, expiring after
 * `auditArchiveRetentionDays` when that is set).
 */
import { Duration } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Rule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { ENV } from './environment.js';
import { HarnessFunction, handlerEntry } from './harness-function.js';
import { acknowledge, wildcardResourceFinding } from './nag.js';
import type { TurnMachineArns } from './turn-machine-arns.js';

/** The variable the archive function reads its retention from (functions/composition/audit.ts). */
export const AUDIT_RETENTION_ENV = 'TINY_HARNESS_AUDIT_RETENTION_DAYS';

export interface AuditArchiveProps {
  readonly table: ITableV2;
  readonly arns: TurnMachineArns;
  /** The environment every function of the stack gets. */
  readonly environment: Record<string, string>;
  /** Days an archived history is kept after its execution closed; 0 keeps it with the task. */
  readonly retentionDays: number;
}

export class AuditArchive extends Construct {
  readonly function: HarnessFunction;
  readonly rule: Rule;
  /** Trigger events the function could not take after its retries. */
  readonly deadLetterQueue: Queue;

  constructor(scope: Construct, id: string, props: AuditArchiveProps) {
    super(scope, id);
    this.function = new HarnessFunction(this, 'ArchiveFunction', {
      entry: handlerEntry('archive'),
      description: "tiny-harness: archives a closed turn execution's history for auditors",
      // A 25,000-event history is 25 GetExecutionHistory pages and a few dozen writes.
      timeout: Duration.minutes(5),
      environment: {
        ...props.environment,
        [AUDIT_RETENTION_ENV]: String(props.retentionDays),
      },
    });
    this.function.bindTable({ table: props.table, access: 'archive' });
    this.function.addEnvironment(ENV.stateMachineArn, props.arns.stateMachineArn);
    this.function.addToRolePolicy(
      new PolicyStatement({
        actions: ['states:GetExecutionHistory'],
        resources: [props.arns.executionArnPattern],
      })
    );
    if (this.function.role) {
      acknowledge(
        this.function.role,
        wildcardResourceFinding(this, props.arns.executionArnPattern),
        "Execution names are per task and generation, known only at run time; the pattern covers executions of this stack's turn state machine and no other."
      );
    }

    this.deadLetterQueue = new Queue(this, 'Failed', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    acknowledge(
      this.deadLetterQueue,
      'AwsSolutions-SQS3',
      'This queue is itself the dead-letter queue of the archive rule.'
    );
    this.rule = new Rule(this, 'ExecutionClosed', {
      description: 'tiny-harness: a turn execution closed; archive its history',
      eventPattern: {
        source: ['aws.states'],
        detailType: ['Step Functions Execution Status Change'],
        detail: {
          stateMachineArn: [props.arns.stateMachineArn],
          status: ['SUCCEEDED', 'FAILED', 'TIMED_OUT', 'ABORTED'],
        },
      },
      targets: [
        new LambdaFunction(this.function, {
          retryAttempts: 8,
          maxEventAge: Duration.hours(24),
          deadLetterQueue: this.deadLetterQueue,
        }),
      ],
    });
  }
}
