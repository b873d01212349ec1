import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ScriptedModel } from '../../functions/core/testing/scripted-model.js';
import { type LocalStack, startLocalStack } from '../../functions/local/local-stack.js';
import { benchStackEnv, sleep } from './local-client.js';
import { DynamoDbMeter } from './meter.js';
import { SwitchModel } from './models.js';
import { runLocal, scriptFor, WARMUP_TURNS } from './scenarios.js';
import { median } from './stats.js';

/** How a turn's spans leave the process, as each configuration of the comparison sets it. */
export type Exporter = 'compiled out' | 'none' | 'file' | 'otlp';

export interface TracingRow {
  exporter: Exporter;
  /** A turn's wall time, SendMessage to the park (median of the runs' per-turn means). */
  wall_ms_per_turn: number;
  /** The turn step handlers' time per turn (median likewise). */
  step_ms_per_turn: number;
  /** wall_ms_per_turn over that of `compiled out`. */
  vs_compiled_out: number;
  /** Spans exported per turn; null where nothing is exported. */
  spans_per_turn: number | null;
}

export interface TracingFigures {
  scenario: 'one_tool';
  turns: number;
  runs: number;
  rows: TracingRow[];
}

/** The spans in one OTLP JSON export request (a file line or a request body). */
const spansIn = (json: string): number => {
  const request = JSON.parse(json) as {
    resourceSpans?: { scopeSpans?: { spans?: unknown[] }[] }[];
  };
  let spans = 0;
  for (const resource of request.resourceSpans ?? []) {
    for (const scope of resource.scopeSpans ?? []) spans += scope.spans?.length ?? 0;
  }
  return spans;
};

/** An OTLP/HTTP receiver that counts the spans it is sent and keeps nothing. */
const startSink = async (): Promise<{ url: string; spans: () => number; close: () => void }> => {
  let spans = 0;
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      spans += spansIn(Buffer.concat(chunks).toString('utf8'));
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, spans: () => spans, close: () => server.close() };
};

const fileSpans = (path: string): number => {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return 0;
  }
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .reduce((sum, line) => sum + spansIn(line), 0);
};

interface Configuration {
  exporter: Exporter;
  stack: LocalStack;
  model: SwitchModel;
  meter: DynamoDbMeter;
  spans: (() => number) | undefined;
}

/** Rounds per `--runs`: the differences sought are a few percent, under this machine's noise. */
export const ROUNDS_PER_RUN = 3;

/**
 * A turn's cost with tracing compiled out, compiled in with no exporter, and exporting to a file
 * and to an OTLP/HTTP receiver: three local stacks in this process, the one-tool-call scenario
 * run on each in turn, `ROUNDS_PER_RUN` × `runs` rounds, each round starting at the next
 * configuration. "Compiled out" is the no-exporter stack with the bundles'
 * switch (`tinyHarnessBundledTracing`) set to false for its runs, as `cdk synth` builds a
 * deployment without `otelEndpoint`.
 */
export const measureTracing = async (
  options: { turns: number; runs: number },
  progress: (message: string) => void
): Promise<TracingFigures> => {
  const dir = mkdtempSync(join(tmpdir(), 'tiny-harness-bench-tracing-'));
  const file = join(dir, 'spans.jsonl');
  const sink = await startSink();
  const maxTurns = options.turns + 10;
  const start = async (env: Record<string, string>) => {
    const model = new SwitchModel(new ScriptedModel());
    const meter = new DynamoDbMeter();
    const stack = await startLocalStack({
      port: 0,
      model,
      env: { ...benchStackEnv(maxTurns), ...env },
      onDynamoDbCommand: meter.observe,
    });
    return { stack, model, meter };
  };
  const plain = await start({});
  const filed = await start({ TINY_HARNESS_OTEL_FILE: file });
  const sent = await start({ OTEL_EXPORTER_OTLP_ENDPOINT: sink.url });
  const configurations: Configuration[] = [
    { exporter: 'compiled out', ...plain, spans: undefined },
    { exporter: 'none', ...plain, spans: undefined },
    { exporter: 'file', ...filed, spans: () => fileSpans(file) },
    { exporter: 'otlp', ...sent, spans: sink.spans },
  ];
  const run = async (configuration: Configuration, turns: number) => {
    globalThis.tinyHarnessBundledTracing =
      configuration.exporter === 'compiled out' ? false : undefined;
    try {
      const { stack, model, meter } = configuration;
      return await runLocal(stack, model, meter, scriptFor(1, turns));
    } finally {
      globalThis.tinyHarnessBundledTracing = undefined;
    }
  };
  try {
    progress('tracing: three local stacks up');
    for (const configuration of configurations) await run(configuration, WARMUP_TURNS);
    // Spans still being flushed from the warm-up are not the measured runs'.
    await sleep(500);
    const spansBefore = configurations.map((configuration) => configuration.spans?.() ?? 0);
    const wall = configurations.map((): number[] => []);
    const step = configurations.map((): number[] => []);
    // Round robin, so a noisy minute of the machine falls on every configuration alike, and
    // each round starts at the next one, so none always runs first.
    const rounds = ROUNDS_PER_RUN * options.runs;
    for (let round = 0; round < rounds; round++) {
      for (let offset = 0; offset < configurations.length; offset++) {
        const index = (round + offset) % configurations.length;
        const measured = await run(configurations[index] as Configuration, options.turns);
        wall[index]?.push(measured.wallMs / measured.turns);
        step[index]?.push(measured.turnStepMs / measured.turns);
      }
    }
    await sleep(500);
    const turns = options.turns * rounds;
    const baseline = median(wall[0] ?? []);
    const rows = configurations.map((configuration, index): TracingRow => {
      const wallMs = median(wall[index] ?? []);
      return {
        exporter: configuration.exporter,
        wall_ms_per_turn: wallMs,
        step_ms_per_turn: median(step[index] ?? []),
        vs_compiled_out: wallMs / baseline,
        spans_per_turn:
          configuration.spans === undefined
            ? null
            : (configuration.spans() - (spansBefore[index] ?? 0)) / turns,
      };
    });
    progress('tracing: done');
    return { scenario: 'one_tool', turns: options.turns, runs: rounds, rows };
  } finally {
    await Promise.all([plain.stack.close(), filed.stack.close(), sent.stack.close()]);
    sink.close();
    rmSync(dir, { recursive: true, force: true });
  }
};
