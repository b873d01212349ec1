import type { LocalStack } from '../../functions/local/local-stack.js';
import type { BenchFigures, LangGraphRow } from './figures.js';
import {
  langGraphVersions,
  runMemorySaver,
  runSqliteSaver,
  type SqliteSettings,
} from './langgraph.js';
import type { DynamoDbMeter } from './meter.js';
import type { SwitchModel } from './models.js';
import { runInProcess, runLocal, scriptFor, WARMUP_TURNS } from './scenarios.js';
import { median, ratio } from './stats.js';
import { growthOf } from './summarize.js';

/** "Per-turn time at turn n" is the median of this many turns around turn n. */
const GROWTH_WINDOW = 20;
const GROWTH_EARLY_TURN = 20;

/**
 * The 1-tool-call conversation at the short and the long length on all four drivers; the long
 * runs also give the per-turn time early and late in one conversation.
 */
export const measureSideBySide = async (
  stack: LocalStack,
  model: SwitchModel,
  meter: DynamoDbMeter,
  options: { shortTurns: number; longTurns: number; runs: number },
  progress: (message: string) => void
): Promise<{
  langgraph: NonNullable<BenchFigures['langgraph']>;
  growth: NonNullable<BenchFigures['growth']>;
}> => {
  const warmup = scriptFor(1, WARMUP_TURNS);
  await runMemorySaver(warmup);
  await runSqliteSaver(warmup);
  await runInProcess(warmup);
  await runLocal(stack, model, meter, warmup);
  const rows: LangGraphRow[] = [];
  let sqlite: SqliteSettings = { journal_mode: '', synchronous: '' };
  const long: Record<'local' | 'inprocess' | 'memory' | 'sqlite', number[]> = {
    local: [],
    inprocess: [],
    memory: [],
    sqlite: [],
  };
  for (const turns of [options.shortTurns, options.longTurns]) {
    const runs = turns === options.longTurns ? 1 : options.runs;
    const ms = { local: [] as number[], inprocess: [] as number[], memory: [] as number[] };
    const sqliteMs: number[] = [];
    for (let run = 0; run < runs; run++) {
      const script = scriptFor(1, turns);
      const local = await runLocal(stack, model, meter, script);
      const inprocess = await runInProcess(script);
      const memory = await runMemorySaver(script);
      const onFile = await runSqliteSaver(script);
      sqlite = onFile.sqlite;
      ms.local.push(local.wallMs / turns);
      ms.inprocess.push(inprocess.wallMs / turns);
      ms.memory.push(memory.wallMs / turns);
      sqliteMs.push(onFile.wallMs / turns);
      if (turns === options.longTurns) {
        long.local = local.callTimes;
        long.inprocess = inprocess.callTimes;
        long.memory = memory.callTimes;
        long.sqlite = onFile.callTimes;
      }
    }
    const row = {
      turns,
      local_ms_per_turn: median(ms.local),
      inprocess_ms_per_turn: median(ms.inprocess),
      memory_saver_ms_per_turn: median(ms.memory),
      sqlite_saver_ms_per_turn: median(sqliteMs),
    };
    rows.push({
      ...row,
      local_vs_sqlite_saver: ratio(row.local_ms_per_turn, row.sqlite_saver_ms_per_turn),
      inprocess_vs_memory_saver: ratio(row.inprocess_ms_per_turn, row.memory_saver_ms_per_turn),
    });
    progress(`side by side at ${turns} turns: done`);
  }
  const late = options.longTurns;
  const early = Math.min(GROWTH_EARLY_TURN, late);
  const growthFor = (times: number[]) => growthOf(times, early, late, GROWTH_WINDOW);
  return {
    langgraph: {
      scenario: 'one_tool' as const,
      runs: options.runs,
      durability: 'sync',
      sqlite,
      versions: langGraphVersions(),
      rows,
    },
    growth: {
      scenario: 'one_tool' as const,
      turns: late,
      early_turn: early,
      late_turn: late,
      window: GROWTH_WINDOW,
      local: growthFor(long.local),
      inprocess: growthFor(long.inprocess),
      memory_saver: growthFor(long.memory),
      sqlite_saver: growthFor(long.sqlite),
    },
  };
};
