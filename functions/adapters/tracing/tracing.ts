import {
  type Context,
  context,
  ROOT_CONTEXT,
  type Span,
  SpanStatusCode,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import type { TaskRecord } from '../../core/ports/task-store.js';
import { HARNESS } from './attributes.js';
import { type TaskLineage, TaskLineages } from './lineage.js';

/** What the decorators and the handlers' edges trace with. */
export interface Tracing {
  readonly enabled: boolean;
  readonly tracer: Tracer;
  readonly captureContent: boolean;
  readonly agentId: string;
  /** Text as the transcript would keep it: every secret masked. */
  redact(text: string): string;
  /** Lineages of the tasks this runtime's store holds. */
  readonly lineages: TaskLineages;
  /** The context a task's spans start in: under its task span, in its tree's trace. */
  contextOf(lineage: TaskLineage): Context;
  /** The task's own span, emitted once when the task is created. */
  taskCreated(record: TaskRecord): Promise<void>;
  /** Exports what is buffered: at the end of every invocation (a frozen Lambda exports nothing). */
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

const NO_LINEAGES = new TaskLineages(async () => undefined);

/** Tracing off: the API's no-op tracer, and nothing read, recorded or sent. */
export const NO_TRACING: Tracing = {
  enabled: false,
  tracer: trace.getTracer('tiny-harness'),
  captureContent: false,
  agentId: '',
  redact: (text) => text,
  lineages: NO_LINEAGES,
  contextOf: () => ROOT_CONTEXT,
  taskCreated: async () => undefined,
  flush: async () => undefined,
  shutdown: async () => undefined,
};

/** The attributes every span about a task carries. */
export const taskAttributes = (lineage: TaskLineage) => ({
  [HARNESS.taskId]: lineage.taskId,
  [HARNESS.contextId]: lineage.contextId,
  [HARNESS.rootTask]: lineage.rootId,
  ...(lineage.type === null ? {} : { [HARNESS.taskType]: lineage.type }),
  ...(lineage.parentId === null ? {} : { [HARNESS.parentTask]: lineage.parentId }),
});

/**
 * `run` inside `span`, which ends with it: an error is recorded on it (its message redacted: a
 * provider's error may echo a key) and thrown on.
 */
export const within = async <T>(
  tracing: Pick<Tracing, 'redact'>,
  span: Span,
  run: (span: Span) => Promise<T>
): Promise<T> => {
  try {
    return await context.with(trace.setSpan(context.active(), span), () => run(span));
  } catch (error) {
    const name = error instanceof Error ? error.name : 'Error';
    const message = tracing.redact(error instanceof Error ? error.message : String(error));
    span.recordException({ name, message });
    span.setAttribute('error.type', name);
    span.setStatus({ code: SpanStatusCode.ERROR, message });
    throw error;
  } finally {
    span.end();
  }
};

/**
 * What the invocation buffered, exported before it returns: a frozen Lambda sends nothing. A
 * collector that cannot be reached costs a warning, never the step.
 */
export const flushTraces = async (
  tracing: Tracing,
  logger: { warn(message: string, fields?: Record<string, unknown>): void }
): Promise<void> => {
  if (!tracing.enabled) return;
  await tracing
    .flush()
    .catch((error: unknown) =>
      logger.warn('spans not exported', { errorMessage: (error as Error).message })
    );
};
