/**
 * A tiny run of `npm run bench` end to end, about 40 s (five local stacks start; the bundles are
 * left out: building them takes longer than the rest, and their measurement is tested in
 * bench-helpers.test.ts): its JSON has the documented shape, every part is there, and
 * `--markdown` prints every part's table.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { BenchFiguresSchema } from '../../scripts/bench/figures.js';
import { renderReport } from '../../scripts/bench/report.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

describe('npm run bench on a tiny run', () => {
  const dir = mkdtempSync(join(tmpdir(), 'bench-run-test-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('writes every figure in the documented shape and prints every table', {
    timeout: 180_000,
  }, async () => {
    const file = join(dir, 'figures.json');
    const { stdout } = await run(
      process.execPath,
      [
        '--import',
        'tsx',
        'scripts/bench.ts',
        ...['--turns', '2', '--runs', '1', '--short-turns', '3', '--long-turns', '6'],
        ...['--children', '2', '--senders', '3', '--messages-per-sender', '2'],
        ...['--warm-up-conversations', '2', '--conversations', '4', '--clients', '2'],
        ...['--parked', '7'],
        ...['--skip', 'bundles', '--json', file, '--markdown'],
      ],
      { cwd: ROOT, maxBuffer: 16 * 1024 * 1024, timeout: 170_000 }
    );
    const figures = BenchFiguresSchema.parse(JSON.parse(readFileSync(file, 'utf8')));

    expect(figures.bundles).toBeNull();
    expect(figures.step_bundles).toBeNull();
    expect(figures.run.options.skip).toEqual(['bundles']);
    const { scenarios, langgraph, growth, parked, child_to_parent_ms: child } = figures;
    expect(scenarios?.chat).toMatchObject({ turns: 2, messages: 2, runs: 1 });
    expect(scenarios?.one_tool).toMatchObject({ turns: 2, messages: 1 });
    // Every state entered is counted under its name.
    const four = scenarios?.four_tools;
    const named = Object.values(four?.states_per_turn ?? {}).reduce((a, b) => a + b, 0);
    expect(named).toBeCloseTo(four?.transitions_per_turn ?? -1, 6);
    expect(scenarios?.chat.transitions_per_turn).toBeGreaterThan(0);
    expect(scenarios?.chat.ddb_writes_per_turn).toBeGreaterThan(0);
    // The DynamoDB calls' time is part of the turn's, never more than all of it.
    for (const scenario of [scenarios?.chat, scenarios?.one_tool, four]) {
      expect(scenario?.ddb_ms_per_turn).toBeGreaterThan(0);
      expect(scenario?.ddb_ms_per_turn).toBeLessThan(scenario?.local_ms_per_turn ?? 0);
    }
    // Write units as AWS bills them, beside DynamoDB Local's, in every scenario.
    for (const scenario of [scenarios?.chat, scenarios?.one_tool, four]) {
      expect(scenario?.wru_billed_per_turn).toBeGreaterThan(0);
      expect(scenario?.wru_per_turn).toBeGreaterThan(0);
    }
    expect(figures.renewal?.threshold_turns).toBe(200);
    expect(langgraph?.rows.map((row) => row.turns)).toEqual([3, 6]);
    expect(langgraph?.rows.every((row) => row.sqlite_saver_ms_per_turn > 0)).toBe(true);
    expect(growth).toMatchObject({ turns: 6, late_turn: 6 });
    expect(figures.new_conversations).toMatchObject({
      clients: 2,
      conversations: 4,
      stopped: null,
    });
    const cpu = figures.new_conversations?.cpu_ms_per_conversation;
    expect(cpu?.stack_node).toBeGreaterThan(0);
    expect(cpu?.dynamodb_local).toBeGreaterThan(0);
    expect(figures.new_conversations?.cpu_ceiling_per_s).toBeGreaterThan(0);
    // The warm-up's conversations are opened first, reported apart, and stay parked.
    expect(figures.new_conversations?.warm_up).toMatchObject({ conversations: 2 });
    expect(figures.new_conversations?.warm_up?.cpu_ms_per_conversation.stack_node).toBeGreaterThan(
      0
    );
    expect(parked).toMatchObject({ target: 7, parked: 7, stopped: null });
    expect(parked?.dynamodb_rss_bytes).toBeGreaterThan(0);
    expect(child?.children).toBe(2);
    expect(child?.p50).toBeGreaterThan(0);
    expect(figures.concurrent_senders).toMatchObject({ accepted: 6, refused: 0 });
    // A chat turn writes as many items on a large task as on a small one.
    const taskGrowth = figures.task_growth?.rows ?? [];
    expect(taskGrowth.map((row) => [row.sub_tasks, row.plan_steps])).toEqual([
      [0, 0],
      [100, 0],
      [1000, 0],
      [0, 200],
    ]);
    // The plan and the rows are kept apart from the record: it stays small, and a chat turn's
    // units do not grow with them (the bound: at most 1.2 times a fresh task's).
    const fresh = taskGrowth[0]?.wru_billed_per_turn ?? 0;
    for (const row of taskGrowth) {
      expect(row.record_bytes).toBeLessThan(4_096);
      // Billed, every turn writes the record at least once: a unit per KB of it, at the least.
      expect(row.wru_billed_per_turn).toBeGreaterThanOrEqual(Math.ceil(row.record_bytes / 1024));
      expect(row.wru_billed_per_turn).toBeLessThanOrEqual(1.2 * fresh);
      expect(row.items_per_turn).toBe(taskGrowth[0]?.items_per_turn);
    }
    // A fork of each conversation length: it reads the original and writes its copy.
    expect(figures.fork?.rows.map((row) => row.turns)).toEqual([2, 6]);
    for (const row of figures.fork?.rows ?? []) {
      expect(row.ms).toBeGreaterThan(0);
      expect(row.ddb_reads).toBeGreaterThan(0);
      // Its record, membership, the original's note and its copied transcript.
      expect(row.ddb_items_written).toBeGreaterThanOrEqual(4);
    }
    // The copied transcript is one log item, however many turns it holds (up to the item limit).
    const [shorter, longer] = figures.fork?.rows ?? [];
    expect(longer?.ddb_items_written).toBe(shorter?.ddb_items_written);
    // Each exporter exports every turn's spans; without one, nothing is counted.
    const tracing = figures.tracing;
    expect(tracing?.rows.map((row) => row.exporter)).toEqual([
      'compiled out',
      'none',
      'file',
      'otlp',
    ]);
    expect(tracing?.rows.map((row) => row.spans_per_turn === null)).toEqual([
      true,
      true,
      false,
      false,
    ]);
    for (const row of tracing?.rows.slice(2) ?? []) expect(row.spans_per_turn).toBeGreaterThan(1);
    expect(tracing?.rows[0]?.vs_compiled_out).toBe(1);

    expect(stdout.trim()).toBe(renderReport(figures, 'markdown'));
    for (const heading of [
      'Counts per turn',
      'Where the transitions go',
      'DynamoDB items per turn',
      'Side by side with LangGraph.js',
      'Flat as history grows?',
      'Cloud latency per turn, on paper',
      'New conversations per second',
      'Parked conversations',
      'Child change → parent resumed',
      'Concurrent senders',
      'A chat turn as the task grows',
      'Forking a task',
      'A turn with and without tracing',
    ]) {
      expect(stdout).toContain(`#### ${heading}`);
    }
    expect(stdout).toContain('They were timed after 2 conversations opened first');
  });
});
