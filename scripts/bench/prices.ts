// us-east-1 list prices, per unit. Free tiers are ignored. DynamoDB on-demand is the price after
// AWS's cut of 1 November 2024. Check https://aws.amazon.com/{step-functions,lambda,dynamodb}/
// pricing/ before quoting a figure: these are not fetched.
export const PRICES = {
  asOf: '2024-11-01 (DynamoDB on-demand cut); Step Functions and Lambda arm64 unchanged since',
  stateTransition: 0.025 / 1_000,
  lambdaRequest: 0.2 / 1_000_000,
  lambdaGbSecondArm64: 0.0000133334,
  readRequestUnit: 0.125 / 1_000_000,
  writeRequestUnit: 0.625 / 1_000_000,
} as const;

/** Every function's memory (cdk/constructs/harness-function.ts: `memorySize ?? 512`). */
export const LAMBDA_MEMORY_GB = 512 / 1024;

/** A Standard execution's history limit (Step Functions quotas). */
export const HISTORY_LIMIT = 25_000;
