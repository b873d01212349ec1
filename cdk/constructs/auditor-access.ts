/**
 * Read-only access for auditors (docs/deploy.md, "Auditing"): the turn executions' histories,
 * the task table (records, event logs, archived histories; its items are keyed by task, so IAM
 * cannot narrow a read to some item kinds of a partition) and the state machine's logs. Nothing
 * that writes, starts, stops or answers anything. A managed policy to attach to your own
 * principals, and a role that principals of this account may assume.
 */
import { Duration } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { AccountRootPrincipal, ManagedPolicy, PolicyStatement, Role } from 'aws-cdk-lib/aws-iam';
import type { ILogGroup } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { acknowledge, wildcardResourceFinding } from './nag.js';
import type { TurnMachineArns } from './turn-machine-arns.js';

export interface AuditorAccessProps {
  readonly table: ITableV2;
  readonly arns: TurnMachineArns;
  readonly stateMachineLogs: ILogGroup;
}

/** Every action the auditor policy allows: all reads (a test pins the list). */
export const AUDITOR_ACTIONS = [
  'states:DescribeStateMachine',
  'states:ListExecutions',
  'states:DescribeExecution',
  'states:GetExecutionHistory',
  'dynamodb:DescribeTable',
  'dynamodb:GetItem',
  'dynamodb:BatchGetItem',
  'dynamodb:Query',
  'logs:FilterLogEvents',
  'logs:GetLogEvents',
] as const;

export class AuditorAccess extends Construct {
  readonly policy: ManagedPolicy;
  readonly role: Role;

  constructor(scope: Construct, id: string, props: AuditorAccessProps) {
    super(scope, id);
    this.policy = new ManagedPolicy(this, 'Policy', {
      description: 'tiny-harness auditor: read execution histories, task records and archives',
      statements: [
        new PolicyStatement({
          actions: ['states:DescribeStateMachine', 'states:ListExecutions'],
          resources: [props.arns.stateMachineArn],
        }),
        new PolicyStatement({
          actions: ['states:DescribeExecution', 'states:GetExecutionHistory'],
          resources: [props.arns.executionArnPattern],
        }),
        new PolicyStatement({
          actions: [
            'dynamodb:DescribeTable',
            'dynamodb:GetItem',
            'dynamodb:BatchGetItem',
            'dynamodb:Query',
          ],
          resources: [props.table.tableArn, `${props.table.tableArn}/index/*`],
        }),
        new PolicyStatement({
          actions: ['logs:FilterLogEvents', 'logs:GetLogEvents'],
          resources: [props.stateMachineLogs.logGroupArn],
        }),
      ],
    });
    this.role = new Role(this, 'Role', {
      assumedBy: new AccountRootPrincipal(),
      description:
        'tiny-harness auditor (read-only); principals of this account with sts:AssumeRole on it may assume it',
      managedPolicies: [this.policy],
      maxSessionDuration: Duration.hours(1),
    });
    acknowledge(
      this.policy,
      wildcardResourceFinding(this, props.arns.executionArnPattern),
      "Execution names are per task and generation, known only at run time; the pattern covers executions of this stack's turn state machine and no other."
    );
    acknowledge(
      this.policy,
      wildcardResourceFinding(this, `${props.table.tableArn}/index/*`),
      "The table's own global secondary indexes (by_context, by_participant): an auditor lists a participant's or a context's tasks."
    );
    acknowledge(
      this.policy,
      wildcardResourceFinding(this, props.stateMachineLogs.logGroupArn),
      "A log group's ARN ends in :*; this is the turn state machine's own log group."
    );
  }
}
