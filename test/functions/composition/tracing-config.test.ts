import { describe, expect, it } from 'vitest';
import {
  configuredSecrets,
  readRuntimeConfig,
} from '../../../functions/composition/runtime-config.js';
import { buildTracing } from '../../../functions/composition/tracing.js';
import { tracesUrlOf } from '../../../functions/composition/tracing-config.js';

const BASE = { TINY_HARNESS_TABLE: 't', TINY_HARNESS_STATE_MACHINE_ARN: 'arn:aws:states:x' };
const none = async () => undefined;

describe('the tracing configuration', () => {
  it('traces nothing with no endpoint and no file, or when the SDK is disabled', () => {
    expect(buildTracing(readRuntimeConfig(BASE), none).enabled).toBe(false);
    const disabled = readRuntimeConfig({
      ...BASE,
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318',
      OTEL_SDK_DISABLED: 'true',
    });
    expect(buildTracing(disabled, none).enabled).toBe(false);
  });

  it('sends to the base endpoint’s /v1/traces, or to the traces endpoint as given', () => {
    expect(tracesUrlOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'https://otel.example.com/base/' })).toBe(
      'https://otel.example.com/base/v1/traces'
    );
    expect(
      tracesUrlOf({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'https://otel.example.com',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://traces.example.com/ingest',
      })
    ).toBe('https://traces.example.com/ingest');
  });

  it('reads the headers percent-decoded, and counts their values as secrets', () => {
    const config = readRuntimeConfig({
      ...BASE,
      OTEL_EXPORTER_OTLP_HEADERS: 'Authorization=Basic%20cGs6c2s%3D, x-team = alpha',
    });
    expect(config.OTEL_EXPORTER_OTLP_HEADERS).toEqual({
      Authorization: 'Basic cGs6c2s=',
      'x-team': 'alpha',
    });
    expect(configuredSecrets(config)).toContain('Basic cGs6c2s=');
  });

  it('refuses a protocol that is not compiled in, and an unknown sampler, naming the variable', () => {
    expect(() => readRuntimeConfig({ ...BASE, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(
      /OTEL_EXPORTER_OTLP_PROTOCOL: only http\/json is supported/
    );
    expect(() => readRuntimeConfig({ ...BASE, OTEL_TRACES_SAMPLER: 'sometimes' })).toThrow(
      /OTEL_TRACES_SAMPLER/
    );
    expect(() => readRuntimeConfig({ ...BASE, OTEL_EXPORTER_OTLP_HEADERS: 'no-value' })).toThrow(
      /OTEL_EXPORTER_OTLP_HEADERS: expected name=value pairs/
    );
  });
});
