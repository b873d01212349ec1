import { createHash } from 'node:crypto';
import type { IdGenerator } from '@opentelemetry/sdk-trace';
import { RandomIdGenerator } from '@opentelemetry/sdk-trace';

const digest = (label: string, id: string, chars: number): string =>
  createHash('sha256').update(`${label}\u0000${id}`).digest('hex').slice(0, chars);

/**
 * The trace of a delegation tree, from its root task's id. A task's steps run in separate
 * invocations (Lambda or not) that carry only `{ taskId, generation, turn }`, so the ids are
 * derived, not stored: every step of every task in the tree lands in the same trace.
 */
export const traceIdOfTree = (rootTaskId: string): string => digest('trace', rootTaskId, 32);

/** The span of a task (its `invoke_agent` span): the parent of each of its steps' spans. */
export const spanIdOfTask = (taskId: string): string => digest('task', taskId, 16);

/**
 * Random ids, except for the one span started inside `withIds`: a task's span is emitted once,
 * at its creation, with the ids its steps' spans already name as their parent.
 */
export class DerivedIdGenerator implements IdGenerator {
  readonly #random = new RandomIdGenerator();
  #next: { traceId: string; spanId: string } | undefined;

  generateTraceId(): string {
    return this.#next?.traceId ?? this.#random.generateTraceId();
  }

  generateSpanId(): string {
    return this.#next?.spanId ?? this.#random.generateSpanId();
  }

  /** `start` must start exactly one span, synchronously (a tracer's `startSpan`). */
  withIds<T>(ids: { traceId: string; spanId: string }, start: () => T): T {
    this.#next = ids;
    try {
      return start();
    } finally {
      this.#next = undefined;
    }
  }
}
