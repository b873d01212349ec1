/**
 * What a turn's orchestration costs in latency in the cloud, on paper: the counts the benchmark
 * measures times per-operation latencies. Only DynamoDB's is a figure AWS publishes; AWS
 * publishes none for a state transition or a warm Lambda invocation, so those enter as
 * "per 10 ms" sensitivities rather than invented values. docs/benchmark.md cites each source.
 */
import type { ScenarioFigures } from './figures.js';

export const CLOUD_FIGURES = {
  /** "Single-digit millisecond performance at any scale": 1 to 9 ms a request. */
  dynamodbRequestMs: { low: 1, high: 9 },
  source: {
    dynamodb: 'https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Introduction.html',
    lambdaColdStart:
      'https://docs.aws.amazon.com/lambda/latest/dg/lambda-runtime-environment.html#cold-start-latency',
    streamPolling: 'https://docs.aws.amazon.com/lambda/latest/dg/with-ddb.html',
  },
} as const;

export interface CloudLatency {
  states: number;
  invocations: number;
  dynamodbRequests: number;
  dynamodbLowMs: number;
  dynamodbHighMs: number;
  /** Milliseconds a turn gains per 10 ms of overhead per state entered / per Lambda invocation. */
  per10msStateMs: number;
  per10msInvocationMs: number;
}

export const cloudLatencyOf = (scenario: ScenarioFigures): CloudLatency => {
  const requests = Object.values(scenario.ddb_commands_per_turn).reduce((a, b) => a + b, 0);
  return {
    states: scenario.transitions_per_turn,
    invocations: scenario.lambda_invocations_per_turn,
    dynamodbRequests: requests,
    dynamodbLowMs: requests * CLOUD_FIGURES.dynamodbRequestMs.low,
    dynamodbHighMs: requests * CLOUD_FIGURES.dynamodbRequestMs.high,
    per10msStateMs: scenario.transitions_per_turn * 10,
    per10msInvocationMs: scenario.lambda_invocations_per_turn * 10,
  };
};
