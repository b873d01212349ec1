import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Task } from '@a2a-js/sdk';
import { describe, expect, it } from 'vitest';
import { readRuntimeConfig } from '../../functions/composition/runtime-config.js';
import { buildTracing } from '../../functions/composition/tracing.js';
import { tracesUrlOf } from '../../functions/composition/tracing-config.js';
import { userTextMessage } from '../../functions/core/loop/messages.js';
import { resourceAt, synthHarness } from '../cdk/support/synth.js';
import { startOtlpReceiver } from '../e2e/tracing-otlp-receiver.js';
import { clientFor, eventually, startStack } from '../support/local-stack.js';

const run = promisify(execFile);
const ROOT = new URL('../..', import.meta.url).pathname;
const PAGE = readFileSync(join(ROOT, 'docs/observability.md'), 'utf8');
const snippets = [...PAGE.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1] ?? '');

/** The variables a snippet exports, as its shell sets them (its `npm start` not run). */
const exported = async (snippet: string): Promise<Record<string, string>> => {
  const exports = snippet
    .split('\n')
    .filter((line) => line.startsWith('export '))
    .join('\n');
  const { stdout } = await run('bash', [
    '-c',
    `env -i bash -c '${exports.replaceAll("'", "'\\''")}\nenv -0'`,
  ]);
  return Object.fromEntries(
    stdout
      .split('\0')
      .filter((entry) => /^(OTEL|TINY_HARNESS)_/.test(entry))
      .map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)])
  );
};

const BASE = { TINY_HARNESS_TABLE: 't', TINY_HARNESS_STATE_MACHINE_ARN: 'arn:aws:states:x' };

/**
 * docs/observability.md as a reader uses it: each configuration snippet is run by the shell, and
 * what it exports is a configuration the runtime takes and traces with (the file snippet against
 * the local stack; the collectors' with their endpoint pointed at a local receiver); the
 * deployment's context is one `cdk synth` takes.
 */
describe('docs/observability.md', () => {
  it('has the four snippets: a file, Langfuse, Phoenix and X-Ray', () => {
    expect(snippets).toHaveLength(4);
  });

  it('the file snippet: npm start writes the spans of a task as OTLP JSON lines', async () => {
    const env = await exported(snippets[0]!);
    expect(Object.keys(env)).toEqual(['TINY_HARNESS_OTEL_FILE']);
    const dir = mkdtempSync(join(tmpdir(), 'tiny-harness-otel-doc-'));
    const stack = await startStack({ env: { TINY_HARNESS_OTEL_FILE: join(dir, 'spans.jsonl') } });
    try {
      const client = await clientFor(stack, 'alice');
      const task = (await client.sendMessage({
        tenant: '',
        message: userTextMessage({
          messageId: `doc-${Date.now()}`,
          text: 'hello',
          taskId: '',
          contextId: '',
        }),
        configuration: undefined,
        metadata: undefined,
      })) as Task;
      const names = await eventually(async () => {
        let text = '';
        try {
          text = readFileSync(join(dir, 'spans.jsonl'), 'utf8');
        } catch {
          return undefined;
        }
        const found = text
          .trim()
          .split('\n')
          .flatMap((line) => JSON.parse(line).resourceSpans)
          .flatMap((resource: { scopeSpans: Array<{ spans: Array<{ name: string }> }> }) =>
            resource.scopeSpans.flatMap((scope) => scope.spans.map((span) => span.name))
          );
        return found.includes('park') ? found : undefined;
      });
      expect(task.id).not.toBe('');
      expect(names).toEqual(
        expect.arrayContaining(['invoke_agent tiny-harness', 'turn', 'chat demo', 'park'])
      );
    } finally {
      await stack.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it.each([
    [1, 'https://cloud.langfuse.com/api/public/otel/v1/traces'],
    [2, 'http://localhost:6006/v1/traces'],
  ])(
    'collector snippet %i: taken by the runtime, exported with its headers',
    async (index, url) => {
      const env = await exported(snippets[index]!);
      const config = readRuntimeConfig({ ...BASE, ...env });
      expect(tracesUrlOf(config)).toBe(url);
      // The same configuration, its endpoint on loopback: what the exporter sends, and how.
      const receiver = await startOtlpReceiver();
      try {
        const local = readRuntimeConfig({
          ...BASE,
          ...env,
          OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
        });
        const tracing = buildTracing(local, async () => undefined);
        if (!tracing.enabled) throw new Error('not traced');
        tracing.tracer.startSpan('doc').end();
        await tracing.shutdown();
        const [headers] = receiver.headers;
        for (const [name, value] of Object.entries(config.OTEL_EXPORTER_OTLP_HEADERS)) {
          expect(headers?.[name.toLowerCase()]).toBe(value);
        }
        expect(receiver.spans.map((span) => span.name)).toEqual(['doc']);
        expect(tracing.captureContent).toBe(env.TINY_HARNESS_OTEL_CONTENT === 'true');
      } finally {
        await receiver.close();
      }
    }
  );

  it('the Langfuse snippet sends Basic authentication of the two keys', async () => {
    const env = await exported(snippets[1]!);
    const { OTEL_EXPORTER_OTLP_HEADERS: headers } = readRuntimeConfig({ ...BASE, ...env });
    expect(headers.Authorization).toBe(
      `Basic ${Buffer.from('pk-lf-1234:sk-lf-5678').toString('base64')}`
    );
    expect(headers['x-langfuse-ingestion-version']).toBe('4');
  });

  it('the X-Ray snippet: a context cdk synth takes, which traces every function that drives tasks', () => {
    const context = Object.fromEntries(
      [...snippets[3]!.matchAll(/-c (\w+)=(\S+)/g)].map((match) => [match[1], match[2]])
    );
    expect(Object.keys(context)).toEqual([
      'otelEndpoint',
      'otelCollectorLayer',
      'otelSampler',
      'otelSamplerArg',
    ]);
    const { template } = synthHarness(context);
    const turnStep = resourceAt(template, 'TurnStepFunction').Properties!;
    expect((turnStep.Environment as { Variables: Record<string, string> }).Variables).toMatchObject(
      {
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://localhost:4318',
        OTEL_TRACES_SAMPLER: 'traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '0.1',
      }
    );
    expect(turnStep.Layers).toEqual([context.otelCollectorLayer]);
  });
});
