import fc from 'fast-check';
import { type FuzzRequest, fuzzRequests } from './requests.js';
import type { FuzzTarget } from './target.js';
import { type Verdict, verdictOf } from './verdict.js';
import { setupWorld } from './world.js';

/** A failure the report shows: what was sent, what came back, and what was wrong with it. */
export interface FuzzFailure {
  verdict: Exclude<Verdict, { kind: 'ok' }>;
  request: FuzzRequest;
  status: number;
  body: string;
}

export interface FuzzReport {
  seed: number;
  requests: number;
  /** Requests that carried a field of a clearly wrong type. */
  wrongTyped: number;
  /** Answers by outcome: success, refused, before-binding, and each kind of failure. */
  outcomes: Record<string, number>;
  /** Failures by kind, operation and mutation (`coerced GetTask.historyLength`, ...). */
  failuresBy: Record<string, number>;
  /** The first few failures of each key of `failuresBy`. */
  examples: FuzzFailure[];
  /** Error-level log lines the target wrote (an internal error always writes one). */
  errorLogLines: number;
}

export interface FuzzOptions {
  seed: number;
  requests: number;
  /** Examples kept per failure key. @default 3 */
  examplesPerKey?: number;
  onProgress?: (done: number, report: FuzzReport) => void;
}

/** The operations that may write, whose refusals must leave the store as it was. */
const WRITES: ReadonlySet<string> = new Set([
  'SendMessage',
  'SendStreamingMessage',
  'CancelTask',
  'CreateTaskPushNotificationConfig',
  'DeleteTaskPushNotificationConfig',
  'envelope',
]);

/** Requests are drawn in batches, each from its own seed, so a large run never holds them all. */
const BATCH = 250;

const failureKey = (verdict: FuzzFailure['verdict'], request: FuzzRequest) => {
  if (verdict.kind === 'coerced' || verdict.kind === 'wrong-refusal') {
    return `${verdict.kind} ${request.binding} ${request.operation}.${verdict.field}`;
  }
  return `${verdict.kind} ${request.binding} ${request.operation} ${request.mutation}: ${verdict.why}`;
};

const clip = (text: string, length = 400) =>
  text.length > length ? `${text.slice(0, length)}… (${text.length} characters)` : text;

/**
 * Sends `requests` fuzzed requests to the target, one at a time, after creating the world they
 * aim at, and judges every answer (verdict.ts).
 */
export const runFuzz = async (target: FuzzTarget, options: FuzzOptions): Promise<FuzzReport> => {
  const world = await setupWorld(target);
  const arbitrary = fuzzRequests(world);
  const report: FuzzReport = {
    seed: options.seed,
    requests: 0,
    wrongTyped: 0,
    outcomes: {},
    failuresBy: {},
    examples: [],
    errorLogLines: 0,
  };
  const logsBefore = target.errorLogs?.().length ?? 0;
  /** What the store holds, read around the requests that could write it. */
  const footprintOf = async (request: FuzzRequest) =>
    target.footprint !== undefined && WRITES.has(request.operation)
      ? target.footprint(world)
      : undefined;
  for (let batch = 0; report.requests < options.requests; batch++) {
    const numRuns = Math.min(BATCH, options.requests - report.requests);
    for (const request of fc.sample(arbitrary, { seed: options.seed + batch, numRuns })) {
      let verdict: Verdict;
      let status = 0;
      let body = '';
      try {
        const before = await footprintOf(request);
        const answer = await target.send(request);
        ({ status, body } = answer);
        verdict = verdictOf(request, answer);
        const after = await footprintOf(request);
        // A stream that started had its request accepted, whatever its last frame says.
        const refused = verdict.kind === 'ok' && verdict.outcome !== 'success' && !answer.streamed;
        if (refused && after !== before) {
          verdict = { kind: 'stored', why: 'a refused request changed what is stored' };
        }
      } catch (error) {
        verdict = { kind: 'internal', why: `the handler threw: ${(error as Error).message}` };
      }
      report.requests++;
      if (request.wrongTyped !== undefined) report.wrongTyped++;
      const outcome = verdict.kind === 'ok' ? verdict.outcome : verdict.kind;
      report.outcomes[outcome] = (report.outcomes[outcome] ?? 0) + 1;
      if (verdict.kind !== 'ok') {
        const key = failureKey(verdict, request);
        const seen = report.failuresBy[key] ?? 0;
        report.failuresBy[key] = seen + 1;
        if (seen < (options.examplesPerKey ?? 3)) {
          report.examples.push({
            verdict,
            request: { ...request, body: request.body === null ? null : clip(request.body) },
            status,
            body: clip(body),
          });
        }
      }
    }
    options.onProgress?.(report.requests, report);
  }
  report.errorLogLines = (target.errorLogs?.().length ?? 0) - logsBefore;
  return report;
};

/** The report as lines a person reads. */
export const describeReport = (report: FuzzReport): string => {
  const count = (outcome: string) => report.outcomes[outcome] ?? 0;
  const lines = [
    `${report.requests} requests (seed ${report.seed}), ${report.wrongTyped} with a wrong-typed field`,
    `  success ${count('success')}, refused ${count('refused')}, answered before the binding ${count('before-binding')}`,
    `  internal errors ${count('internal')}, answers in no binding's shape ${count('shape')}`,
    `  wrong-typed fields coerced ${count('coerced')}, refused with another error ${count('wrong-refusal')}`,
    `  refusals that changed what is stored ${count('stored')}`,
    `  error-level log lines ${report.errorLogLines}`,
  ];
  const failures = Object.entries(report.failuresBy).sort(([, a], [, b]) => b - a);
  if (failures.length > 0) {
    lines.push('failures:');
    for (const [key, times] of failures) lines.push(`  ${times} × ${key}`);
  }
  return lines.join('\n');
};
