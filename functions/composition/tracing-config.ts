import * as z from 'zod';
import { SAMPLERS } from '../adapters/tracing/sampler.js';

/**
 * `OTEL_EXPORTER_OTLP_HEADERS`: `name=value` pairs, comma-separated, values percent-encoded (the
 * OpenTelemetry specification's format). Their values are credentials (an API key, a Basic auth):
 * secrets, never logged.
 */
const parseHeaders = (text: string, context: z.RefinementCtx): Record<string, string> => {
  const headers: Record<string, string> = {};
  for (const pair of text.split(',')) {
    if (pair.trim() === '') continue;
    const at = pair.indexOf('=');
    if (at <= 0) {
      context.addIssue({ code: 'custom', message: 'expected name=value pairs, comma-separated' });
      return z.NEVER;
    }
    try {
      headers[pair.slice(0, at).trim()] = decodeURIComponent(pair.slice(at + 1).trim());
    } catch {
      context.addIssue({
        code: 'custom',
        message: `${pair.slice(0, at).trim()}: not percent-encoded`,
      });
      return z.NEVER;
    }
  }
  return headers;
};

/**
 * The tracing half of the runtime's configuration: OpenTelemetry's standard variables, read by
 * this schema (not by the SDK from the process) so that a local stack's own environment counts as
 * the process's would, and two of ours, for a file and for content capture.
 */
export const TracingConfigShape = {
  OTEL_EXPORTER_OTLP_ENDPOINT: z.string().url().optional(),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.string().url().optional(),
  OTEL_EXPORTER_OTLP_HEADERS: z.string().default('').transform(parseHeaders),
  /** Only JSON over HTTP is compiled in: a bundle with protobuf and gRPC would carry both. */
  OTEL_EXPORTER_OTLP_PROTOCOL: z
    .literal('http/json', {
      message: 'only http/json is supported (set it, or leave it unset)',
    })
    .optional(),
  OTEL_SERVICE_NAME: z.string().min(1).optional(),
  OTEL_TRACES_SAMPLER: z.enum(SAMPLERS).default('parentbased_always_on'),
  OTEL_TRACES_SAMPLER_ARG: z.coerce.number().min(0).max(1).default(1),
  /** `false` turns tracing off whatever else is set (the SDK's own switch). */
  OTEL_SDK_DISABLED: z
    .enum(['true', 'false'])
    .default('false')
    .transform((value) => value === 'true'),
  TINY_HARNESS_OTEL_FILE: z.string().min(1).optional(),
  TINY_HARNESS_OTEL_CONTENT: z
    .enum(['true', 'false'])
    .default('false')
    .transform((value) => value === 'true'),
};

/** The traces URL: the signal's own endpoint as given, or the base endpoint's `/v1/traces`. */
export const tracesUrlOf = (config: {
  OTEL_EXPORTER_OTLP_ENDPOINT?: string | undefined;
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?: string | undefined;
}): string | undefined =>
  config.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ??
  (config.OTEL_EXPORTER_OTLP_ENDPOINT === undefined
    ? undefined
    : `${config.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, '')}/v1/traces`);
