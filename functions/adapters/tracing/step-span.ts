import { type Attributes, type Link, SpanKind, trace } from '@opentelemetry/api';
import type { TaskRecord } from '../../core/ports/task-store.js';
import { GEN_AI, HARNESS } from './attributes.js';
import type { TaskLineage } from './lineage.js';
import { type Tracing, taskAttributes, within } from './tracing.js';

/** A state of the turn state machine, as the turn-step handler reads it. */
export interface TracedStep {
  op: string;
  ref: { taskId: string; generation: number; turn: number };
  callId?: string | undefined;
}

const toolNameOf = (record: TaskRecord | undefined, callId: string): string | undefined =>
  record?.loop.response?.toolCalls.find((call) => call.id === callId)?.name;

/**
 * A span about one task (a step, a wake, a child's news), in its tree's trace under its task
 * span. Off, `run` runs alone and nothing is read.
 */
export const inTaskSpan = async <T>(
  tracing: Tracing,
  task: { id: string; record?: TaskRecord | undefined },
  name: string,
  attributes: Attributes,
  run: () => Promise<T>,
  links: Link[] = []
): Promise<T> => {
  // Written out for esbuild to fold (tracing.ts): without tracing, only the return below.
  if ((globalThis.tinyHarnessBundledTracing ?? true) && tracing.enabled) {
    const lineage: TaskLineage | undefined =
      task.record === undefined
        ? await tracing.lineages.byId(task.id)
        : await tracing.lineages.of(task.record);
    const span = tracing.tracer.startSpan(
      name,
      {
        kind: SpanKind.INTERNAL,
        links,
        attributes: {
          ...(lineage === undefined ? { [HARNESS.taskId]: task.id } : taskAttributes(lineage)),
          ...attributes,
        },
      },
      lineage === undefined ? undefined : tracing.contextOf(lineage)
    );
    return within(tracing, span, run);
  }
  return run();
};

/**
 * One state of the turn state machine as a span: `turn`, `park`, `renew`, `fail`, and for a tool
 * call the conventions' `execute_tool <name>` (its record read for the name: one read per call
 * step, only while tracing is on). The route the step returned is recorded on it.
 */
export const inStepSpan = async <T>(
  tracing: Tracing,
  step: TracedStep,
  read: (taskId: string) => Promise<TaskRecord | undefined>,
  run: () => Promise<T>
): Promise<T> => {
  // Written out for esbuild to fold (tracing.ts): without tracing, only the return below.
  if ((globalThis.tinyHarnessBundledTracing ?? true) && tracing.enabled) {
    const { taskId, generation, turn } = step.ref;
    const record = step.callId === undefined ? undefined : await read(taskId);
    const tool =
      step.callId === undefined ? undefined : (toolNameOf(record, step.callId) ?? 'unknown');
    const name = tool === undefined ? step.op : `execute_tool ${tool}`;
    const attributes: Attributes = {
      [HARNESS.step]: step.op,
      [HARNESS.generation]: generation,
      [HARNESS.turn]: turn,
      ...(tool === undefined
        ? {}
        : {
            [GEN_AI.operation]: 'execute_tool',
            [GEN_AI.toolName]: tool,
            [GEN_AI.toolCallId]: step.callId,
            [GEN_AI.toolType]: 'function',
          }),
    };
    return inTaskSpan(tracing, { id: taskId, record }, name, attributes, async () => {
      const result = await run();
      const route = (result as { route?: { next?: unknown } } | undefined)?.route?.next;
      if (typeof route === 'string') trace.getActiveSpan()?.setAttribute(HARNESS.route, route);
      return result;
    });
  }
  return run();
};

/** A link to a task's span (a child whose news reaches its parent); none while tracing is off. */
export const linkToTask = async (tracing: Tracing, record: TaskRecord): Promise<Link[]> => {
  // Written out for esbuild to fold (tracing.ts): without tracing, only the return below.
  if ((globalThis.tinyHarnessBundledTracing ?? true) && tracing.enabled) {
    const context = trace.getSpanContext(tracing.contextOf(await tracing.lineages.of(record)));
    return context === undefined ? [] : [{ context }];
  }
  return [];
};

/** Attributes on the span running now (a step's outcome learnt inside it); nothing when off. */
export const annotate = (tracing: Tracing, attributes: Attributes): void => {
  // Written out for esbuild to fold (tracing.ts).
  if ((globalThis.tinyHarnessBundledTracing ?? true) && tracing.enabled) {
    trace.getActiveSpan()?.setAttributes(attributes);
  }
};
