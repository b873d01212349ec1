import {
  type Context,
  context,
  type Span,
  SpanStatusCode,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import type { TaskRecord } from '../../core/ports/task-store.js';
import { HARNESS } from './attributes.js';
import type { TaskLineage, TaskLineages } from './lineage.js';

declare global {
  /**
   * Whether this Lambda bundle holds tracing. `cdk synth` replaces it by `true` when the deployment
   * configures an OTLP endpoint (context `otelEndpoint`) and by `false` when it does not
   * (esbuild's `define`, cdk/constructs/harness-function.ts): each test of it here, at the edges
   * and in the composition (`if ((globalThis.tinyHarnessBundledTracing ?? true) && …) { … }`,
   * written out for esbuild to fold, with the traced code inside the block: esbuild drops a
   * folded block, not the statements after a folded early return) then folds to `false`, and
   * the OpenTelemetry API and SDK are left out of the bundle.
   * Unbundled (`npm start`, the tests) it is undefined, and tracing is there.
   */
  var tinyHarnessBundledTracing: boolean | undefined;
}

/** Tracing off: nothing read, recorded or sent, and nothing of OpenTelemetry loaded. */
export interface NoTracing {
  readonly enabled: false;
}

/** What the decorators and the handlers' edges trace with. */
export type Tracing = NoTracing | ActiveTracing;

export interface ActiveTracing {
  readonly enabled: true;
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

export const NO_TRACING: NoTracing = { enabled: false };

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
  tracing: Pick<ActiveTracing, 'redact'>,
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
  // Written out for esbuild to fold: without tracing, nothing.
  if ((globalThis.tinyHarnessBundledTracing ?? true) && tracing.enabled) {
    await tracing
      .flush()
      .catch((error: unknown) =>
        logger.warn('spans not exported', { errorMessage: (error as Error).message })
      );
  }
};
