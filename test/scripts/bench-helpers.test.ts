import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bundleAssetsOf } from '../../scripts/bench/bundle-assets.js';
import { importMs, measureBundle } from '../../scripts/bench/bundles.js';
import {
  checkpointCounts,
  cpuCeiling,
  cpuPerConversation,
  idleCpuPerSecond,
} from '../../scripts/bench/conversations.js';
import { cpuMsOf, ownCpuMs } from '../../scripts/bench/cpu.js';
import {
  BLOCK_BEGIN,
  BLOCK_END,
  markedBlock,
  replaceMarkedBlock,
} from '../../scripts/bench/docs-block.js';
import { table } from '../../scripts/bench/format.js';
import { itemsOf, kindsOf } from '../../scripts/bench/meter.js';
import { BenchOptionError, DEFAULTS, parseBenchOptions } from '../../scripts/bench/options.js';
import { scriptFor } from '../../scripts/bench/scenarios.js';
import {
  median,
  medianAround,
  percentile,
  ratio,
  turnDurations,
} from '../../scripts/bench/stats.js';

describe('the benchmark’s statistics', () => {
  it('takes the median of odd and even counts, and 0 of nothing', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBe(0);
  });

  it('takes nearest-rank percentiles: always an observed value', () => {
    const values = Array.from({ length: 100 }, (_, i) => 100 - i);
    expect(percentile(values, 50)).toBe(50);
    expect(percentile(values, 95)).toBe(95);
    expect(percentile(values, 100)).toBe(100);
    expect(percentile([7], 95)).toBe(7);
    expect(percentile([], 50)).toBe(0);
  });

  it('turns model-call start times into turn durations, one fewer than calls', () => {
    expect(turnDurations([0, 10, 30, 60])).toEqual([10, 20, 30]);
    expect(turnDurations([5])).toEqual([]);
  });

  it('reads the time "at turn n" as the median of the window around it, clamped to the turns', () => {
    // Turn i lasts i ms: around turn 20 (turns 11–30) the median is 20.5; at the end of a
    // 400-call conversation (399 durations) the window is turns 380–399.
    const durations = Array.from({ length: 399 }, (_, i) => i + 1);
    expect(medianAround(durations, 20, 20)).toBe(20.5);
    expect(medianAround(durations, 400, 20)).toBe(389.5);
    expect(medianAround(durations, 1, 20)).toBe(10.5);
    expect(medianAround([4, 6], 20, 20)).toBe(5);
    expect(ratio(3, 0)).toBe(0);
  });
});

describe('the benchmark’s options', () => {
  it('has the documented defaults', () => {
    const options = parseBenchOptions([]);
    expect(options).toMatchObject({ ...DEFAULTS, markdown: false, writeDocs: false });
    expect(options.skip.size).toBe(0);
    expect(options.json).toBeUndefined();
  });

  it('takes flags over BENCH_* variables', () => {
    const options = parseBenchOptions(['--long-turns', '120', '--skip', 'bundles,children'], {
      BENCH_LONG_TURNS: '999',
      BENCH_PARKED: '5000',
    });
    expect(options.longTurns).toBe(120);
    expect(options.parked).toBe(5000);
    expect([...options.skip].sort()).toEqual(['bundles', 'children']);
  });

  it('never parks fewer conversations than it opens, for the warm-up and for the rate', () => {
    expect(parseBenchOptions(['--conversations', '300', '--parked', '100']).parked).toBe(700);
    const cold = ['--warm-up-conversations', '0', '--conversations', '300', '--parked', '100'];
    expect(parseBenchOptions(cold)).toMatchObject({ warmUpConversations: 0, parked: 300 });
    expect(
      parseBenchOptions(['--parked', '100'], { BENCH_WARM_UP_CONVERSATIONS: '50' })
    ).toMatchObject({ warmUpConversations: 50, parked: 250 });
  });

  it.each([
    [['--turns', '1'], /--turns must be an integer of at least 2/],
    [['--runs', 'x'], /--runs must be an integer/],
    [['--warm-up-conversations=-1'], /--warm-up-conversations must be an integer of at least 0/],
    [['--skip', 'everything'], /--skip knows scenarios, .*; not "everything"/],
    [['--short-turns', '60', '--long-turns', '50'], /--long-turns must be at least --short-turns/],
    [['--write-docs', '--skip', 'bundles'], /--write-docs writes every table/],
    [['--frobnicate'], /Unknown option '--frobnicate'/],
  ])('refuses %j by name', (args, message) => {
    expect(() => parseBenchOptions(args)).toThrow(BenchOptionError);
    expect(() => parseBenchOptions(args)).toThrow(message);
  });
});

describe('the scenario scripts', () => {
  it('plays K turns: K - 1 of `calls` valid plan calls, then a text turn', () => {
    const script = scriptFor(4, 5);
    expect(script.messages).toHaveLength(1);
    expect(script.replies).toHaveLength(5);
    expect(script.replies.slice(0, 4).every((reply) => reply.toolCalls?.length === 4)).toBe(true);
    expect(script.replies[0]?.toolCalls?.[0]?.name).toBe('create_plan');
    expect(script.replies[0]?.toolCalls?.[1]?.name).toBe('complete_step');
    expect(script.replies.at(-1)).toEqual({ text: 'All steps done.' });
    const chat = scriptFor(0, 3);
    expect(chat.messages).toEqual(['message 1', 'message 2', 'message 3']);
    expect(chat.replies.every((reply) => reply.toolCalls === undefined)).toBe(true);
  });
});

describe('the parked conversations’ memory checkpoints', () => {
  it('reads memory at up to five evenly spaced counts, never twice at one count', () => {
    expect(checkpointCounts(200, 1_200, 5)).toEqual([400, 600, 800, 1_000, 1_200]);
    expect(checkpointCounts(4, 6, 5)).toEqual([5, 6]);
    expect(checkpointCounts(10, 10, 5)).toEqual([]);
  });
});

describe('the CPU time new conversations cost', () => {
  it('divides each process’s CPU time between two readings by the conversations opened', () => {
    const before = { nodeCpuMs: 1_000, dynamodbCpuMs: 2_000, clientsCpuMs: 500 };
    const after = { nodeCpuMs: 3_000, dynamodbCpuMs: 4_400, clientsCpuMs: 900 };
    const cpu = cpuPerConversation(before, after, 100);
    expect(cpu).toEqual({ stack_node: 20, dynamodb_local: 24, clients: 4 });
    // 48 ms a conversation on 2 cores: at most 2,000 ms of CPU a second, 41.7 conversations.
    expect(cpuCeiling(cpu, 2)).toBeCloseTo(2_000 / 48, 9);
    expect(cpuCeiling(cpu, 4)).toBeCloseTo(4_000 / 48, 9);
  });

  it('has no ceiling when DynamoDB Local’s CPU could not be read, or nothing was opened', () => {
    const before = { nodeCpuMs: 1_000, dynamodbCpuMs: null, clientsCpuMs: 500 };
    const cpu = cpuPerConversation(before, { ...before, nodeCpuMs: 2_000 }, 10);
    expect(cpu.dynamodb_local).toBeNull();
    expect(cpuCeiling(cpu, 2)).toBeNull();
    const none = cpuPerConversation(
      { nodeCpuMs: 0, dynamodbCpuMs: 0, clientsCpuMs: 0 },
      { nodeCpuMs: 0, dynamodbCpuMs: 0, clientsCpuMs: 0 },
      0
    );
    expect(none).toEqual({ stack_node: 0, dynamodb_local: 0, clients: 0 });
    expect(cpuCeiling(none, 2)).toBeNull();
  });

  it('divides the idle stack’s CPU time between two readings by the seconds between them', () => {
    const before = { nodeCpuMs: 1_000, dynamodbCpuMs: 2_000 };
    expect(idleCpuPerSecond(before, { nodeCpuMs: 1_050, dynamodbCpuMs: 2_120 }, 5)).toEqual({
      seconds: 5,
      stack_node: 10,
      dynamodb_local: 24,
    });
    expect(
      idleCpuPerSecond({ ...before, dynamodbCpuMs: null }, { ...before, nodeCpuMs: 1_020 }, 2)
    ).toEqual({ seconds: 2, stack_node: 10, dynamodb_local: null });
  });

  it('reads a process’s CPU time from /proc as the process itself counts it', () => {
    // Spins until the process has used `ms` of CPU, not of wall time: on a loaded
    // machine 200 ms of wall time can be half that of CPU.
    const spin = (ms: number) => {
      const until = ownCpuMs() + ms;
      while (ownCpuMs() < until);
    };
    const procBefore = cpuMsOf(process.pid) ?? Number.NaN;
    const ownBefore = ownCpuMs();
    spin(200);
    const procUsed = (cpuMsOf(process.pid) ?? Number.NaN) - procBefore;
    const ownUsed = ownCpuMs() - ownBefore;
    // /proc counts in clock ticks (10 ms here), the process in microseconds.
    expect(procUsed).toBeGreaterThan(100);
    expect(Math.abs(procUsed - ownUsed)).toBeLessThan(50);
    expect(cpuMsOf(2 ** 22 + 1)).toBeUndefined();
  });
});

describe('the DynamoDB meter’s item counting', () => {
  it('counts a transaction’s and a batch’s items, and names item kinds by sort-key prefix', () => {
    const transaction = {
      TransactItems: [
        { Put: { Item: { pk: { S: 'TASK#t1' }, sk: { S: 'TASK' } } } },
        { Put: { Item: { pk: { S: 'TASK#t1' }, sk: { S: 'HIST#000000000001' } } } },
      ],
    };
    expect(itemsOf(transaction)).toBe(2);
    expect(kindsOf(transaction)).toEqual(['TASK', 'HIST#']);
    expect(itemsOf({ RequestItems: { table: { Keys: [{}, {}, {}] } } })).toBe(3);
    expect(kindsOf({ ExpressionAttributeValues: { ':from': { S: 'INBOX#0001' } } })).toEqual([
      'INBOX# (range)',
    ]);
    expect(kindsOf({ ExpressionAttributeValues: { ':prefix': { S: 'PUSH#' } } })).toEqual([
      'PUSH# (prefix)',
    ]);
    expect(kindsOf({ IndexName: 'by_context', ExpressionAttributeValues: {} })).toEqual([
      'index by_context',
    ]);
    expect(kindsOf({ TableName: 't' })).toEqual(['?']);
  });
});

describe('the marked block of a doc', () => {
  const doc = `# Title\n\nprose\n\n${BLOCK_BEGIN}\n\nold\n\n${BLOCK_END}\n\nmore prose\n`;

  it('replaces what lies between the markers and nothing else', () => {
    const next = replaceMarkedBlock(doc, '| a |\n| --- |\n');
    expect(next).toBe(
      `# Title\n\nprose\n\n${BLOCK_BEGIN}\n\n| a |\n| --- |\n\n${BLOCK_END}\n\nmore prose\n`
    );
    expect(markedBlock(next)).toBe('| a |\n| --- |');
    expect(replaceMarkedBlock(next, 'old')).toBe(doc);
  });

  it.each([
    ['no markers', 'just prose', /no <!-- bench:begin -->/],
    ['two blocks', `${doc}${doc}`, /more than one/],
    ['markers out of order', `${BLOCK_END}\n${BLOCK_BEGIN}`, /comes before/],
  ])('refuses a doc with %s', (_, text, message) => {
    expect(() => replaceMarkedBlock(text, 'x')).toThrow(message);
  });
});

describe('tables', () => {
  it('aligns text columns and writes Markdown with right-aligned figures', () => {
    expect(
      table(
        'text',
        ['name', 'n'],
        [
          ['a', '10'],
          ['bbb', '2'],
        ]
      )
    ).toBe('name   n\n----  --\na     10\nbbb    2');
    expect(table('markdown', ['name', 'n'], [['a', '10']])).toBe(
      '| name | n |\n| --- | ---: |\n| a | 10 |'
    );
  });
});

describe('the bundle measurements', () => {
  const dir = mkdtempSync(join(tmpdir(), 'bench-bundle-test-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('finds each function’s asset folder and NODE_OPTIONS in a synthesized template, and only functions of ours', () => {
    const out = join(dir, 'assembly');
    for (const hash of ['abc123', 'def456', 'py789'])
      mkdirSync(join(out, `asset.${hash}`), { recursive: true });
    writeFileSync(join(out, 'asset.abc123', 'index.mjs'), '');
    writeFileSync(join(out, 'asset.def456', 'index.mjs'), '');
    writeFileSync(join(out, 'asset.py789', 'index.py'), '');
    const template = {
      Resources: {
        TurnStepFunctionB7603A1A: {
          Type: 'AWS::Lambda::Function',
          Properties: {
            Code: { S3Bucket: 'b', S3Key: 'abc123.zip' },
            Environment: { Variables: { NODE_OPTIONS: '--enable-source-maps' } },
          },
          Metadata: { 'aws:cdk:path': 'TinyHarness-dev/TurnStepFunction/Resource' },
        },
        ArchiveFunction: {
          Type: 'AWS::Lambda::Function',
          Properties: { Code: { S3Key: 'def456.zip' } },
          Metadata: { 'aws:cdk:path': 'TinyHarness-dev/AuditArchive/ArchiveFunction/Resource' },
        },
        Inline: { Type: 'AWS::Lambda::Function', Properties: { Code: { ZipFile: 'x' } } },
        // CDK's own (the web renderer's deployment, in Python): no index.mjs.
        CustomCDKBucketDeployment: {
          Type: 'AWS::Lambda::Function',
          Properties: { Code: { S3Key: 'py789.zip' } },
          Metadata: { 'aws:cdk:path': 'TinyHarness-dev/Custom::CDKBucketDeployment/Resource' },
        },
        Table: { Type: 'AWS::DynamoDB::Table' },
      },
    };
    expect(bundleAssetsOf(template, out)).toEqual([
      { function: 'ArchiveFunction', dir: join(out, 'asset.def456'), nodeOptions: '' },
      {
        function: 'TurnStepFunction',
        dir: join(out, 'asset.abc123'),
        nodeOptions: '--enable-source-maps',
      },
    ]);
  });

  it('sizes an asset’s files and times its import in fresh node processes', async () => {
    const code = 'export const handler = () => 1;\n';
    const map = '{"version":3,"mappings":""}';
    writeFileSync(join(dir, 'index.mjs'), code);
    writeFileSync(join(dir, 'index.mjs.map'), map);
    const figures = await measureBundle(
      { function: 'F', dir, nodeOptions: '--enable-source-maps' },
      1
    );
    expect(figures).toMatchObject({
      bytes: code.length,
      js_bytes: code.length,
      source_map_bytes: map.length,
      node_options: '--enable-source-maps',
    });
    expect(figures.import_ms).toBeGreaterThan(0);
    expect(figures.import_ms_without_node_options).toBeGreaterThan(0);
  });

  it('fails loudly when the bundle does not load', async () => {
    writeFileSync(join(dir, 'broken.mjs'), 'import "./missing.mjs";\n');
    await expect(importMs(join(dir, 'broken.mjs'), '')).rejects.toThrow(/missing\.mjs/);
  });
});
