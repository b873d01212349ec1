/**
 * The Step Functions operations the facade serves: each request body validated (zod), then
 * handed to the engine. A body that does not fit is a `ValidationException`, as the service
 * answers; an operation we do not serve is an `UnknownOperationException`.
 */
import * as z from 'zod';
import type { LocalStepFunctions } from './engine.js';

const arn = z.string().min(1).max(2048);
// Token length is the engine's to judge: the service answers InvalidToken, not a validation error.
const token = z.string();
const page = {
  maxResults: z.number().int().min(0).max(1000).optional(),
  nextToken: z.string().min(1).max(3096).optional(),
};

const schemas = {
  StartExecution: z.object({
    stateMachineArn: arn,
    name: z.string().min(1).max(80).optional(),
    input: z.string().optional(),
    traceHeader: z.string().optional(),
  }),
  DescribeExecution: z.object({ executionArn: arn, includedData: z.string().optional() }),
  StopExecution: z.object({
    executionArn: arn,
    error: z.string().max(256).optional(),
    cause: z.string().max(32768).optional(),
  }),
  SendTaskSuccess: z.object({ taskToken: token, output: z.string() }),
  SendTaskFailure: z.object({
    taskToken: token,
    error: z.string().max(256).optional(),
    cause: z.string().max(32768).optional(),
  }),
  SendTaskHeartbeat: z.object({ taskToken: token }),
  GetExecutionHistory: z.object({
    executionArn: arn,
    ...page,
    reverseOrder: z.boolean().optional(),
    includeExecutionData: z.boolean().optional(),
  }),
  ListExecutions: z.object({
    stateMachineArn: arn,
    statusFilter: z.enum(['RUNNING', 'SUCCEEDED', 'FAILED', 'TIMED_OUT', 'ABORTED']).optional(),
    ...page,
  }),
} as const;

export type SfnOperation = keyof typeof schemas;

type Handlers = {
  [K in SfnOperation]: (engine: LocalStepFunctions, input: z.infer<(typeof schemas)[K]>) => unknown;
};

/** `exactOptionalPropertyTypes`-proof: drops keys whose value is undefined. */
const defined = <T extends object>(value: T) =>
  Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;

const handlers: Handlers = {
  StartExecution: (engine, { traceHeader: _trace, ...input }) =>
    engine.startExecution(defined(input)),
  DescribeExecution: (engine, { executionArn }) => engine.describeExecution({ executionArn }),
  StopExecution: (engine, input) => engine.stopExecution(defined(input)),
  SendTaskSuccess: (engine, input) => engine.sendTaskSuccess(input),
  SendTaskFailure: (engine, input) => engine.sendTaskFailure(defined(input)),
  SendTaskHeartbeat: (engine, input) => engine.sendTaskHeartbeat(input),
  GetExecutionHistory: (engine, input) => engine.getExecutionHistory(defined(input)),
  ListExecutions: (engine, input) => engine.listExecutions(defined(input)),
};

export class OperationError extends Error {
  override readonly name: 'ValidationException' | 'UnknownOperationException';

  constructor(name: OperationError['name'], message: string) {
    super(message);
    this.name = name;
  }
}

export const isSfnOperation = (name: string): name is SfnOperation => Object.hasOwn(schemas, name);

/** Validates `body` for `operation` and runs it; engine errors propagate unchanged. */
export function runOperation(
  engine: LocalStepFunctions,
  operation: string,
  body: unknown
): unknown {
  if (!isSfnOperation(operation)) {
    throw new OperationError('UnknownOperationException', `Unknown operation ${operation}`);
  }
  const parsed = schemas[operation].safeParse(body);
  if (!parsed.success) {
    throw new OperationError('ValidationException', z.prettifyError(parsed.error));
  }
  const handler = handlers[operation] as (engine: LocalStepFunctions, input: unknown) => unknown;
  return handler(engine, parsed.data);
}
