import type { SpendMetric } from '../../core/loop/spend-metric.js';

/**
 * The spend metric as a CloudWatch embedded metric format line: one JSON object in the stream
 * function's log, which CloudWatch turns into metrics with no API call. Dimensions: the stage, so
 * stages in one account stay apart, and the task type (a named type or `other`).
 */
export const SPEND_METRICS = {
  namespace: 'TinyHarness',
  dimensions: { stage: 'stage', taskType: 'TaskType' },
  names: {
    spendUsd: 'SpendUsd',
    inputTokens: 'InputTokens',
    outputTokens: 'OutputTokens',
    modelCalls: 'ModelCalls',
    budgetUsedShare: 'BudgetUsedShare',
  },
} as const;

/** Where a line goes: the function's stdout in the cloud, an array in a test. */
export type LineSink = (line: string) => void;

/** Publishes what one change of a task spent (`spendMetricOf`). */
export type SpendMetricWriter = (taskId: string, metric: SpendMetric) => void;

export const NO_SPEND_METRICS: SpendMetricWriter = () => undefined;

type Unit = 'None' | 'Count';

/**
 * One metric line (pure). Only the values `metric` has are metrics; the task id rides along as a
 * plain field (CloudWatch Logs Insights finds the task, no metric is made of it).
 */
export const spendMetricLine = (
  metric: SpendMetric,
  context: { stage: string; taskId: string; timestamp: number }
): string => {
  const { names, dimensions } = SPEND_METRICS;
  const values: Array<[string, Unit, number]> = [];
  if (metric.spend !== undefined) {
    values.push(
      [names.spendUsd, 'None', metric.spend.cost_usd],
      [names.inputTokens, 'Count', metric.spend.input_tokens],
      [names.outputTokens, 'Count', metric.spend.output_tokens],
      [names.modelCalls, 'Count', metric.spend.model_calls]
    );
  }
  if (metric.budgetUsedShare !== undefined) {
    values.push([names.budgetUsedShare, 'None', metric.budgetUsedShare]);
  }
  return JSON.stringify({
    _aws: {
      Timestamp: context.timestamp,
      CloudWatchMetrics: [
        {
          Namespace: SPEND_METRICS.namespace,
          Dimensions: [[dimensions.stage, dimensions.taskType]],
          Metrics: values.map(([name, unit]) => ({ Name: name, Unit: unit })),
        },
      ],
    },
    [dimensions.stage]: context.stage,
    [dimensions.taskType]: metric.taskType,
    taskId: context.taskId,
    ...Object.fromEntries(values.map(([name, , value]) => [name, value])),
  });
};

/** Writes each metric as one line to `sink`, stamped with `now()` (epoch milliseconds). */
export const emfSpendMetrics =
  (options: { stage: string; sink: LineSink; now?: () => number }): SpendMetricWriter =>
  (taskId, metric) =>
    options.sink(
      spendMetricLine(metric, {
        stage: options.stage,
        taskId,
        timestamp: (options.now ?? Date.now)(),
      })
    );

/** The process's stdout, a line at a time: where Lambda's log takes embedded metrics from. */
export const stdoutSink: LineSink = (line) => {
  process.stdout.write(`${line}\n`);
};
