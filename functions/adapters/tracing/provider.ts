import {
  type Context,
  context,
  type Link,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  TraceFlags,
  trace,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, type SpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import { redactSecrets } from '../../core/intake/redact.js';
import type { TaskRecord } from '../../core/ports/task-store.js';
import { GEN_AI } from './attributes.js';
import { OtlpJsonFileExporter } from './file-exporter.js';
import { DerivedIdGenerator } from './ids.js';
import { type TaskLineage, TaskLineages } from './lineage.js';
import { type SamplerName, samplerOf } from './sampler.js';
import { type ActiveTracing, taskAttributes } from './tracing.js';

export interface TracingSettings {
  serviceName: string;
  /** The agent's participant id: every task span names it. */
  agentId: string;
  /** The OTLP/HTTP (JSON) traces URL; none: no network exporter. */
  endpoint?: string | undefined;
  headers: Record<string, string>;
  /** A file to append OTLP JSON lines to; none: no file. */
  file?: string | undefined;
  sampler: SamplerName;
  samplerRatio: number;
  /** Prompts, completions and tool arguments on the spans (redacted); off by default. */
  captureContent: boolean;
  /** The deployment's secrets, masked in any captured content (the list grows as secrets are read). */
  secrets: () => readonly string[];
}

let globalsSet = false;

/**
 * The context manager and the W3C propagator are the process's (the API keeps one of each);
 * providers are per runtime, so two stacks in one process (the tests) keep their own resources.
 */
const setGlobals = () => {
  if (globalsSet) return;
  globalsSet = true;
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
};

export const startTracing = (
  settings: TracingSettings,
  get: (taskId: string) => Promise<TaskRecord | undefined>
): ActiveTracing => {
  setGlobals();
  const processors: SpanProcessor[] = [];
  if (settings.endpoint !== undefined) {
    processors.push(
      new BatchSpanProcessor({
        exporter: new OTLPTraceExporter({ url: settings.endpoint, headers: settings.headers }),
      })
    );
  }
  if (settings.file !== undefined) {
    processors.push(new BatchSpanProcessor({ exporter: new OtlpJsonFileExporter(settings.file) }));
  }
  const ids = new DerivedIdGenerator();
  const sampler = samplerOf(settings.sampler, settings.samplerRatio);
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: settings.serviceName }),
    sampler,
    idGenerator: ids,
    spanProcessors: processors,
  });
  const tracer = provider.getTracer('tiny-harness');
  const lineages = new TaskLineages(get);
  /** Whether the sampler keeps a tree: decided on its trace id, the same in every invocation. */
  const sampled = (traceId: string): boolean =>
    sampler.shouldSample(ROOT_CONTEXT, traceId, 'invoke_agent', SpanKind.INTERNAL, {}, [])
      .decision !== 0;
  const contextOf = (lineage: TaskLineage): Context =>
    trace.setSpanContext(ROOT_CONTEXT, {
      traceId: lineage.traceId,
      spanId: lineage.spanId,
      traceFlags: sampled(lineage.traceId) ? TraceFlags.SAMPLED : TraceFlags.NONE,
      isRemote: true,
    });
  return {
    enabled: true,
    tracer,
    captureContent: settings.captureContent,
    agentId: settings.agentId,
    redact: (text) => redactSecrets(text, settings.secrets()),
    lineages,
    contextOf,
    taskCreated: async (record) => {
      const lineage = await lineages.of(record);
      const parent = lineage.parentId === null ? undefined : await lineages.byId(lineage.parentId);
      const creator = trace.getActiveSpan()?.spanContext();
      const links: Link[] = creator === undefined ? [] : [{ context: creator }];
      const span = ids.withIds({ traceId: lineage.traceId, spanId: lineage.spanId }, () =>
        tracer.startSpan(
          `invoke_agent ${settings.agentId}`,
          {
            kind: SpanKind.INTERNAL,
            links,
            attributes: {
              [GEN_AI.operation]: 'invoke_agent',
              [GEN_AI.agentName]: settings.agentId,
              [GEN_AI.agentId]: settings.agentId,
              [GEN_AI.conversationId]: lineage.contextId,
              ...taskAttributes(lineage),
            },
          },
          parent === undefined ? ROOT_CONTEXT : contextOf(parent)
        )
      );
      span.end();
    },
    flush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
};
