/**
 * Reads a Step Functions execution history (the events `GetExecutionHistory` returns, from the
 * cloud, the local facade or the archive) as the harness's own steps: which operation ran for
 * which turn and tool call, when, how it ended, and how often it was retried. Keyed on the
 * Lambda payload's `op`, not on state names, so a renamed or merged state reads the same.
 */

/** The fields of a history event this reader uses; the SDK's `HistoryEvent` fits it. */
export interface HistoryEventLike {
  id: number;
  previousEventId?: number | undefined;
  /** A Date (SDK), epoch seconds (the service's JSON) or an ISO string (the archive). */
  timestamp: Date | number | string;
  type: string;
  [details: string]: unknown;
}

export interface StepRef {
  taskId: string;
  generation: number;
  turn: number;
}

export type StepOutcome = 'succeeded' | 'failed' | 'timed_out' | 'running';

/** One attempt of one Lambda operation of the turn state machine. */
export interface StepRun {
  op: string;
  ref: StepRef | undefined;
  callId: string | undefined;
  /** The park's sub-state, the failure a `fail` op records. */
  payload: Record<string, unknown>;
  /** The event that scheduled the attempt. */
  eventId: number;
  scheduledAt: string;
  endedAt: string | undefined;
  outcome: StepOutcome;
  error: string | undefined;
  cause: string | undefined;
  /** 1 for the first attempt of an (op, ref, call), 2 for its first retry, ... */
  attempt: number;
}

export interface ExecutionEnd {
  status: 'SUCCEEDED' | 'FAILED' | 'ABORTED' | 'TIMED_OUT';
  at: string;
  eventId: number;
  error: string | undefined;
  cause: string | undefined;
}

export interface ExecutionFacts {
  startedAt: string | undefined;
  startEventId: number | undefined;
  end: ExecutionEnd | undefined;
  runs: StepRun[];
}

export const isoOf = (timestamp: Date | number | string): string => {
  if (timestamp instanceof Date) return timestamp.toISOString();
  if (typeof timestamp === 'number') return new Date(Math.round(timestamp * 1000)).toISOString();
  return new Date(timestamp).toISOString();
};

const record = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};

const parseJson = (text: unknown): unknown => {
  if (typeof text !== 'string') return text;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

const refOf = (value: unknown): StepRef | undefined => {
  const ref = record(value);
  return typeof ref.taskId === 'string' &&
    typeof ref.generation === 'number' &&
    typeof ref.turn === 'number'
    ? { taskId: ref.taskId, generation: ref.generation, turn: ref.turn }
    : undefined;
};

/** The Lambda payload of a scheduling event: `input` (direct) or `parameters.Payload` (callback). */
const payloadOf = (event: HistoryEventLike): Record<string, unknown> | undefined => {
  const lambda = record(event.lambdaFunctionScheduledEventDetails);
  if (lambda.input !== undefined) return record(parseJson(lambda.input));
  const task = record(event.taskScheduledEventDetails);
  if (task.parameters !== undefined) {
    const parameters = record(parseJson(task.parameters));
    return record(parameters.Payload ?? parameters.Input);
  }
  return undefined;
};

const ENDINGS: Record<string, StepOutcome> = {
  LambdaFunctionSucceeded: 'succeeded',
  LambdaFunctionFailed: 'failed',
  LambdaFunctionStartFailed: 'failed',
  LambdaFunctionScheduleFailed: 'failed',
  LambdaFunctionTimedOut: 'timed_out',
  TaskSucceeded: 'succeeded',
  TaskFailed: 'failed',
  TaskStartFailed: 'failed',
  TaskSubmitFailed: 'failed',
  TaskTimedOut: 'timed_out',
};

const failureOf = (event: HistoryEventLike): { error?: string; cause?: string } => {
  for (const [key, value] of Object.entries(event)) {
    if (!key.endsWith('EventDetails')) continue;
    const details = record(value);
    return {
      ...(typeof details.error === 'string' ? { error: details.error } : {}),
      ...(typeof details.cause === 'string' ? { cause: details.cause } : {}),
    };
  }
  return {};
};

const EXECUTION_ENDS: Record<string, ExecutionEnd['status']> = {
  ExecutionSucceeded: 'SUCCEEDED',
  ExecutionFailed: 'FAILED',
  ExecutionAborted: 'ABORTED',
  ExecutionTimedOut: 'TIMED_OUT',
};

/** The steps of one execution, in the order they were scheduled. */
export const readExecution = (events: readonly HistoryEventLike[]): ExecutionFacts => {
  const sorted = [...events].sort((a, b) => a.id - b.id);
  const next = new Map<number, HistoryEventLike[]>();
  for (const event of sorted) {
    const previous = event.previousEventId ?? 0;
    next.set(previous, [...(next.get(previous) ?? []), event]);
  }
  /** The first ending that follows a scheduling event along its chain (Started, Submitted, ...). */
  const endingOf = (scheduled: HistoryEventLike): HistoryEventLike | undefined => {
    let frontier = next.get(scheduled.id) ?? [];
    for (let hops = 0; hops < 4 && frontier.length > 0; hops++) {
      const ended = frontier.find((event) => ENDINGS[event.type] !== undefined);
      if (ended !== undefined) return ended;
      frontier = frontier
        .filter((event) => /(Started|Submitted)$/.test(event.type))
        .flatMap((event) => next.get(event.id) ?? []);
    }
    return undefined;
  };

  const facts: ExecutionFacts = {
    startedAt: undefined,
    startEventId: undefined,
    end: undefined,
    runs: [],
  };
  const attempts = new Map<string, number>();
  for (const event of sorted) {
    if (event.type === 'ExecutionStarted') {
      facts.startedAt = isoOf(event.timestamp);
      facts.startEventId = event.id;
      continue;
    }
    const status = EXECUTION_ENDS[event.type];
    if (status !== undefined) {
      facts.end = { status, at: isoOf(event.timestamp), eventId: event.id, ...endFailure(event) };
      continue;
    }
    const payload = payloadOf(event);
    if (payload === undefined || typeof payload.op !== 'string') continue;
    const call = record(payload.call);
    const ref = refOf(payload.ref) ?? refOf(call.ref);
    const callId = typeof call.callId === 'string' ? call.callId : undefined;
    const identity = JSON.stringify([payload.op, ref, callId]);
    const attempt = (attempts.get(identity) ?? 0) + 1;
    attempts.set(identity, attempt);
    const ending = endingOf(event);
    facts.runs.push({
      op: payload.op,
      ref,
      callId,
      payload,
      eventId: event.id,
      scheduledAt: isoOf(event.timestamp),
      endedAt: ending === undefined ? undefined : isoOf(ending.timestamp),
      outcome: ending === undefined ? 'running' : (ENDINGS[ending.type] ?? 'failed'),
      error: undefined,
      cause: undefined,
      attempt,
      ...(ending === undefined ? {} : failureOf(ending)),
    });
  }
  return facts;
};

const endFailure = (event: HistoryEventLike) => {
  const failure = failureOf(event);
  return { error: failure.error, cause: failure.cause };
};
