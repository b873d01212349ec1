/**
 * What an operator is told about, each alarm with a runbook line in docs/deploy.md: turn
 * executions that failed, timed out or were aborted; each function's errors and throttles; the
 * API's 5xx answers and latency; the stream consumers falling behind (iterator age) or giving up
 * (on-failure queues); execution ends the reconciler never received; with default budgets, a
 * task type's trees using a configured share of their budgets (the stream function's embedded
 * metrics, functions/adapters/system/emf-metrics.ts). All notify one encrypted topic. A dashboard shows turns, model tokens and cost per hour from the turn step's embedded
 * metrics (functions/adapters/system/turn-metrics.ts).
 */
import { ArnFormat, Duration, Stack } from 'aws-cdk-lib';
import type { Stage } from 'aws-cdk-lib/aws-apigateway';
import {
  Alarm,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  type IMetric,
  MathExpression,
  Metric,
  SingleValueWidget,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Topic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { IStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { SPEND_METRICS } from '../../functions/adapters/system/emf-metrics.js';
import { TURN_METRICS } from '../../functions/adapters/system/turn-metrics.js';
import { OTHER_TASK_TYPE } from '../../functions/core/loop/spend-metric.js';

const PERIOD = Duration.minutes(5);
const HOUR = Duration.hours(1);

/** The thresholds the alarms use (docs/deploy.md states them; a test holds the two equal). */
export const ALARM_THRESHOLDS = {
  /** Cancels and cut turns abort one execution each: only a burst is news. */
  abortedPer15Minutes: 20,
  /** Lambda errors in 5 minutes (a lost optimistic write is retried, and counted, now and then). */
  functionErrors: 5,
  /** API Gateway 5xx answers in 5 minutes. */
  api5xx: 5,
  /** p90 latency of the API, over three 5-minute periods (unary calls answer within 25 s). */
  apiLatencyP90Ms: 10_000,
  /** A stream consumer this far behind (records are dropped at an hour). */
  iteratorAgeMs: 10 * 60_000,
} as const;

export interface HarnessAlarmsProps {
  readonly stage: string;
  readonly stateMachine: IStateMachine;
  /** The follow state machine of children on remote agents. */
  readonly followStateMachine: IStateMachine;
  /** Every function of the stack, by construct id: errors and throttles alarm per function. */
  readonly functions: Readonly<Record<string, IFunction>>;
  readonly apiStage: Stage;
  /** The table stream's consumers: iterator age and the on-failure queue, per function. */
  readonly streamConsumers: ReadonlyArray<{
    readonly id: string;
    readonly handler: IFunction;
    readonly failureQueue: IQueue;
    readonly failureDescription: string;
  }>;
  /** Execution ends EventBridge could not deliver to the reconciler. */
  readonly reconcilerDeadLetterQueue: IQueue;
  /**
   * An alarm per task type (`BudgetUsedShare`, maximum over 5 minutes, at `share` or more): the
   * types `defaultBudget` names and `other`. None without default budgets.
   */
  readonly budgetAlarms?: { readonly taskTypes: readonly string[]; readonly share: number };
}

export class HarnessAlarms extends Construct {
  readonly topic: Topic;
  readonly dashboard: Dashboard;
  /** Every alarm, by construct id. */
  readonly alarms = new Map<string, Alarm>();

  readonly #action: SnsAction;

  constructor(scope: Construct, id: string, props: HarnessAlarmsProps) {
    super(scope, id);
    // A customer managed key: CloudWatch must be allowed to use it, and the AWS managed
    // alias/aws/sns key's policy cannot grant that (alarms would silently fail to publish).
    const key = new Key(this, 'TopicKey', {
      description: 'tiny-harness alarm topic encryption',
      enableKeyRotation: true,
    });
    // Only for this account's alarms: without the source conditions, CloudWatch acting for any
    // account's alarm could use the key (the confused deputy).
    const stack = Stack.of(this);
    key.addToResourcePolicy(
      new PolicyStatement({
        sid: 'AlarmsOfThisAccountPublish',
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        resources: ['*'],
        conditions: {
          StringEquals: { 'aws:SourceAccount': stack.account },
          ArnLike: {
            'aws:SourceArn': stack.formatArn({
              service: 'cloudwatch',
              resource: 'alarm',
              resourceName: '*',
              arnFormat: ArnFormat.COLON_RESOURCE_NAME,
            }),
          },
        },
      })
    );
    this.topic = new Topic(this, 'Topic', { masterKey: key, enforceSSL: true });
    this.#action = new SnsAction(this.topic);
    const t = ALARM_THRESHOLDS;
    const sum = { period: PERIOD, statistic: 'Sum' };

    const machine = props.stateMachine;
    this.#alarm('ExecutionsFailed', machine.metricFailed(sum), 1, {
      description:
        'A turn execution failed (Fail Task has marked the task failed, or the reconciler will).',
    });
    this.#alarm('ExecutionsTimedOut', machine.metricTimedOut(sum), 1, {
      description: 'A turn execution timed out; the reconciler failed or restarted its task.',
    });
    this.#alarm(
      'ExecutionsAborted',
      machine.metricAborted({ period: Duration.minutes(15), statistic: 'Sum' }),
      t.abortedPer15Minutes,
      {
        description: 'Many turn executions were stopped in 15 minutes (more than cancels explain).',
      }
    );

    this.#alarm('FollowersFailed', props.followStateMachine.metricFailed(sum), 1, {
      description:
        'Following a child on a remote agent failed past its retries: the child was failed with the reason.',
    });

    for (const [name, fn] of Object.entries(props.functions)) {
      this.#alarm(`${name}Errors`, fn.metricErrors(sum), t.functionErrors, {
        description: `${name} threw in ${t.functionErrors} or more invocations in 5 minutes.`,
      });
      this.#alarm(`${name}Throttles`, fn.metricThrottles(sum), 1, {
        description: `${name} was throttled: its reserved concurrency or the account's is used up.`,
      });
    }

    this.#alarm('Api5xx', props.apiStage.metricServerError(sum), t.api5xx, {
      description: 'The A2A API answered with 5xx errors.',
    });
    this.#alarm(
      'ApiLatency',
      props.apiStage.metricLatency({ period: PERIOD, statistic: 'p90' }),
      t.apiLatencyP90Ms,
      { description: 'The A2A API is slow (p90 latency).', evaluationPeriods: 3 }
    );

    for (const consumer of props.streamConsumers) {
      this.#alarm(
        `${consumer.id}IteratorAge`,
        new Metric({
          namespace: 'AWS/Lambda',
          metricName: 'IteratorAge',
          dimensionsMap: { FunctionName: consumer.handler.functionName },
          period: PERIOD,
          statistic: 'Maximum',
        }),
        t.iteratorAgeMs,
        { description: `${consumer.id} is falling behind the table stream.` }
      );
      this.#queueAlarm(
        `${consumer.id}Failures`,
        consumer.failureQueue,
        consumer.failureDescription
      );
    }
    this.#queueAlarm(
      'ReconcilerFailures',
      props.reconcilerDeadLetterQueue,
      'An execution end never reached the reconciler: its task may be left waiting.'
    );

    if (props.budgetAlarms !== undefined) this.#budgetAlarms(props.stage, props.budgetAlarms);

    this.dashboard = this.#dashboard(props.stage, machine);
  }

  #alarm(
    id: string,
    metric: IMetric,
    threshold: number,
    options: { description: string; evaluationPeriods?: number }
  ): Alarm {
    const alarm = new Alarm(this, id, {
      alarmDescription: options.description,
      metric,
      threshold,
      evaluationPeriods: options.evaluationPeriods ?? 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    alarm.addAlarmAction(this.#action);
    this.alarms.set(id, alarm);
    return alarm;
  }

  /**
   * A task type's trees have used `share` of a budget: the highest `BudgetUsedShare` the stream
   * function published for the type in 5 minutes (a tree over it publishes at its changes).
   */
  #budgetAlarms(stage: string, budget: { taskTypes: readonly string[]; share: number }): void {
    const { dimensions, names } = SPEND_METRICS;
    const percent = `${Math.round(budget.share * 1000) / 10}%`;
    for (const taskType of new Set(budget.taskTypes)) {
      const tasks =
        taskType === OTHER_TASK_TYPE
          ? 'A task of a type defaultBudget does not name'
          : `A task of type ${JSON.stringify(taskType)}`;
      this.#alarm(
        `BudgetUsed-${taskType}`,
        new Metric({
          namespace: SPEND_METRICS.namespace,
          metricName: names.budgetUsedShare,
          dimensionsMap: { [dimensions.stage]: stage, [dimensions.taskType]: taskType },
          period: PERIOD,
          statistic: 'Maximum',
        }),
        budget.share,
        {
          description: `${tasks} and its sub-tasks have used ${percent} or more of a limit of its budget.`,
        }
      );
    }
  }

  /** A message in an on-failure queue: something gave up after its retries. */
  #queueAlarm(id: string, queue: IQueue, description: string): Alarm {
    return this.#alarm(
      id,
      queue.metricApproximateNumberOfMessagesVisible({ period: PERIOD, statistic: 'Maximum' }),
      1,
      { description }
    );
  }

  /** Turns, tokens and cost per hour (the turn step's embedded metrics), and the executions. */
  #dashboard(stage: string, machine: IStateMachine): Dashboard {
    const turnMetric = (metricName: string, label: string) =>
      new Metric({
        namespace: TURN_METRICS.namespace,
        metricName,
        dimensionsMap: { service: TURN_METRICS.service, stage },
        period: HOUR,
        statistic: 'Sum',
        label,
      });
    const { names } = TURN_METRICS;
    const dashboard = new Dashboard(this, 'Dashboard', {
      dashboardName: `TinyHarness-${stage}`,
      defaultInterval: Duration.days(1),
    });
    dashboard.addWidgets(
      new GraphWidget({
        title: 'Turns per hour (model calls)',
        left: [turnMetric(names.modelCalls, 'turns')],
        width: 8,
      }),
      new GraphWidget({
        title: 'Model tokens per hour',
        left: [
          turnMetric(names.inputTokens, 'input'),
          turnMetric(names.cachedInputTokens, 'cached input'),
          turnMetric(names.outputTokens, 'output'),
        ],
        width: 8,
      }),
      new GraphWidget({
        title: 'Model cost per hour (USD, from modelPrices)',
        left: [turnMetric(names.cost, 'USD')],
        width: 8,
      })
    );
    dashboard.addWidgets(
      new SingleValueWidget({
        title: 'Model cost, last 24 hours (USD)',
        metrics: [
          new MathExpression({
            expression: 'SUM(cost)',
            usingMetrics: { cost: turnMetric(names.cost, 'USD') },
            period: HOUR,
            label: 'USD',
          }),
        ],
        width: 8,
      }),
      new GraphWidget({
        title: 'Turn executions',
        left: [
          machine.metricStarted({ period: HOUR, statistic: 'Sum', label: 'started' }),
          machine.metricSucceeded({ period: HOUR, statistic: 'Sum', label: 'succeeded' }),
          machine.metricFailed({ period: HOUR, statistic: 'Sum', label: 'failed' }),
          machine.metricTimedOut({ period: HOUR, statistic: 'Sum', label: 'timed out' }),
          machine.metricAborted({ period: HOUR, statistic: 'Sum', label: 'aborted' }),
        ],
        width: 16,
      })
    );
    return dashboard;
  }
}
