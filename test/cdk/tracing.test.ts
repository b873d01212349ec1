/**
 * The cloud's tracing: context `otelEndpoint` (and the sampler, the collector layer) reaches every
 * function that drives tasks as OpenTelemetry's standard variables, and each bundle holds the SDK
 * only then (functions/adapters/tracing/tracing.ts, `tinyHarnessBundledTracing`).
 */
import { describe, expect, it } from 'vitest';
import { BUNDLE_BUDGET_BYTES, type Bundle, bundleHandler } from '../../cdk/lambda-bundle.js';
import { CONSTRUCT_IDS } from '../../cdk/stacks/harness-stack.js';
import { resourceAt, synthHarness, TEST_STACK_NAME } from './support/synth.js';

const COLLECTOR =
  'arn:aws:lambda:eu-west-1:901920570463:layer:aws-otel-collector-arm64-ver-0-117-0:1';
const traced = synthHarness({
  otelEndpoint: 'http://localhost:4318',
  otelSampler: 'traceidratio',
  otelSamplerArg: '0.25',
  otelCollectorLayer: COLLECTOR,
}).template;
const plain = synthHarness().template;

/** The functions built on the loop (functions/composition/loop-runtime.ts): the traced ones. */
const TRACED = [
  CONSTRUCT_IDS.turnStepFunction,
  CONSTRUCT_IDS.toolStepFunction,
  CONSTRUCT_IDS.streamFunction,
  CONSTRUCT_IDS.a2aFunction,
  CONSTRUCT_IDS.reconcileFunction,
  CONSTRUCT_IDS.remoteFollowFunction,
  CONSTRUCT_IDS.remotePushFunction,
];

const variablesOf = (template: typeof traced, path: string) =>
  (resourceAt(template, path).Properties!.Environment as { Variables: Record<string, unknown> })
    .Variables;

describe('CDK context otelEndpoint', () => {
  it('gives every function that drives tasks the endpoint, the sampler and a service name', () => {
    for (const path of TRACED) {
      expect(variablesOf(traced, path), path).toMatchObject({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://localhost:4318',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_TRACES_SAMPLER: 'traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '0.25',
        OTEL_SERVICE_NAME: TEST_STACK_NAME,
      });
      expect(resourceAt(traced, path).Properties!.Layers, path).toEqual([COLLECTOR]);
    }
    // Push delivery builds no loop: it has nothing to trace.
    expect(
      variablesOf(traced, CONSTRUCT_IDS.pushFunction).OTEL_EXPORTER_OTLP_ENDPOINT
    ).toBeUndefined();
  });

  it('sets nothing of OpenTelemetry when no endpoint is given', () => {
    for (const path of TRACED) {
      const names = Object.keys(variablesOf(plain, path));
      expect(
        names.filter((name) => name.startsWith('OTEL_')),
        path
      ).toEqual([]);
      expect(resourceAt(plain, path).Properties!.Layers, path).toBeUndefined();
    }
  });

  it('refuses a sampler the specification does not name, at synth', () => {
    expect(() =>
      synthHarness({ otelEndpoint: 'http://localhost:4318', otelSampler: 'sometimes' })
    ).toThrow(/otelSampler/);
  });
});

/** Bytes of OpenTelemetry (the API, the SDK, the harness's tracing code) in a bundle. */
const tracingBytes = (bundle: Bundle): number => {
  const [output] = Object.values(bundle.metafile.outputs).filter((o) => o.entryPoint);
  return Object.entries(output!.inputs)
    .filter(([file]) => /@opentelemetry\/|functions\/adapters\/tracing\//.test(file))
    .reduce((sum, [, { bytesInOutput }]) => sum + bytesInOutput, 0);
};

/** The packages that put bytes into a bundle. */
const packagesIn = (bundle: Bundle): string[] => {
  const [output] = Object.values(bundle.metafile.outputs).filter((o) => o.entryPoint);
  const names = Object.entries(output!.inputs)
    .filter(([, { bytesInOutput }]) => bytesInOutput > 0)
    .map(([file]) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(file)?.[1])
    .filter((name): name is string => name !== undefined);
  return [...new Set(names)];
};

const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;

/** What compiling tracing in may add to a bundle (the SDK, the OTLP exporter, the decorators). */
const TRACING_BUDGET_BYTES = 90_000;

describe('tracing in the bundles', () => {
  it.each([
    ['turn-step', { modelProvider: 'demo', mcpServers: false }],
    ['a2a', {}],
    ['stream', {}],
    ['remote-follow', {}],
  ] as const)('%s: none without an endpoint, within its budget with one', async (name, options) => {
    const without = await bundleHandler(name, { ...options, tracing: false });
    const withTracing = await bundleHandler(name, { ...options, tracing: true });
    console.info(
      `${name}: tracing ${kib(tracingBytes(without))} off, ${kib(tracingBytes(withTracing))} on (${kib(withTracing.code.length)})`
    );
    // Off, the harness's few switches and names remain, and none of OpenTelemetry's packages.
    expect(tracingBytes(without)).toBeLessThan(2_000);
    expect(packagesIn(without).filter((name) => name.startsWith('@opentelemetry/'))).toEqual([]);
    expect(packagesIn(withTracing)).toEqual(
      expect.arrayContaining(['@opentelemetry/api', '@opentelemetry/sdk-trace'])
    );
    expect(tracingBytes(withTracing)).toBeLessThanOrEqual(TRACING_BUDGET_BYTES);
    expect(withTracing.code.length).toBeLessThanOrEqual(BUNDLE_BUDGET_BYTES);
  });
});
