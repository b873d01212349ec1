import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { ModelUsage } from '../../core/ports/model.js';

/** The CloudWatch namespace and service of the turn step's metrics (the dashboard reads them). */
export const TURN_METRICS = {
  namespace: 'TinyHarness',
  service: 'turn-step',
  names: {
    modelCalls: 'ModelCalls',
    inputTokens: 'InputTokens',
    cachedInputTokens: 'CachedInputTokens',
    outputTokens: 'OutputTokens',
    cost: 'ModelCostUSD',
  },
} as const;

/** What the turn step reports about each model call it made (never about a reused response). */
export interface TurnMetrics {
  modelCall(call: { usage: ModelUsage; costUsd: number }): void;
}

export const NO_TURN_METRICS: TurnMetrics = { modelCall: () => undefined };

/**
 * The turn step's metrics as CloudWatch embedded metric format lines in the function's log,
 * written by Powertools for AWS Lambda: CloudWatch turns them into metrics with no API call.
 * Dimensions: the service and the stage, so stages in one account stay apart.
 */
export const powertoolsTurnMetrics = (stage: string): TurnMetrics => {
  const metrics = new Metrics({
    namespace: TURN_METRICS.namespace,
    serviceName: TURN_METRICS.service,
    defaultDimensions: { stage },
  });
  const { names } = TURN_METRICS;
  return {
    modelCall({ usage, costUsd }) {
      metrics.addMetric(names.modelCalls, MetricUnit.Count, 1);
      metrics.addMetric(names.inputTokens, MetricUnit.Count, usage.inputTokens);
      metrics.addMetric(names.cachedInputTokens, MetricUnit.Count, usage.cachedInputTokens);
      metrics.addMetric(names.outputTokens, MetricUnit.Count, usage.outputTokens);
      metrics.addMetric(names.cost, MetricUnit.NoUnit, costUsd);
      metrics.publishStoredMetrics();
    },
  };
};
