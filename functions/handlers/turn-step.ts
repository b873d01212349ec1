import { powertoolsTurnMetrics, type TurnMetrics } from '../adapters/system/turn-metrics.js';
import { lambdaTurnStepRuntime } from '../composition/lambda/turn-step.js';
import type { LoopRuntime } from '../composition/loop-runtime.js';
import { createTurnStepHandler } from './turn-step-handler.js';

let metricsMemo: TurnMetrics | undefined;
const lambdaMetrics = (runtime: LoopRuntime) => {
  metricsMemo ??= powertoolsTurnMetrics(runtime.config.TINY_HARNESS_STAGE);
  return metricsMemo;
};

/** The turn step function: every state of the turn state machine but a tool call's. */
export const handler = createTurnStepHandler(lambdaTurnStepRuntime, lambdaMetrics);
