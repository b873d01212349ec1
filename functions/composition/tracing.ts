import { startTracing } from '../adapters/tracing/provider.js';
import { NO_TRACING, type Tracing } from '../adapters/tracing/tracing.js';
import type { TaskRecord } from '../core/ports/task-store.js';
import { configuredSecrets, type RuntimeConfig } from './runtime-config.js';
import { tracesUrlOf } from './tracing-config.js';

/**
 * The runtime's tracing, from its configuration: an OTLP endpoint, a file, or both; neither (or
 * `OTEL_SDK_DISABLED=true`) is no tracing at all, the API's no-op tracer and no decorator.
 */
export const buildTracing = (
  config: RuntimeConfig,
  get: (taskId: string) => Promise<TaskRecord | undefined>
): Tracing => {
  const endpoint = tracesUrlOf(config);
  const file = config.TINY_HARNESS_OTEL_FILE;
  const configured = !config.OTEL_SDK_DISABLED && (endpoint !== undefined || file !== undefined);
  // Written out (not a helper's call) for esbuild to fold it: a bundle without tracing holds
  // none of what follows.
  if ((globalThis.tinyHarnessBundledTracing ?? true) && configured) {
    return startTracing(
      {
        serviceName: config.OTEL_SERVICE_NAME ?? config.TINY_HARNESS_AGENT_ID,
        agentId: config.TINY_HARNESS_AGENT_ID,
        endpoint,
        headers: config.OTEL_EXPORTER_OTLP_HEADERS,
        file,
        sampler: config.OTEL_TRACES_SAMPLER,
        samplerRatio: config.OTEL_TRACES_SAMPLER_ARG,
        captureContent: config.TINY_HARNESS_OTEL_CONTENT,
        secrets: () => configuredSecrets(config),
      },
      get
    );
  }
  return NO_TRACING;
};

/** The provider as the GenAI conventions name it (`gen_ai.provider.name`). */
export const providerNameOf = (config: RuntimeConfig): string => {
  switch (config.TINY_HARNESS_MODEL_PROVIDER) {
    case 'openai':
    case 'openai-chat':
      return 'openai';
    case 'anthropic':
      return 'anthropic';
    case 'bedrock':
      return 'aws.bedrock';
    default:
      return `tiny_harness.${config.TINY_HARNESS_MODEL_PROVIDER}`;
  }
};
