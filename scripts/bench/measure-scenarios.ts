import type { LocalStack } from '../../functions/local/local-stack.js';
import type { DynamoDbMeter } from './meter.js';
import type { SwitchModel } from './models.js';
import { runInProcess, runLocal, SCENARIOS, scriptFor, WARMUP_TURNS } from './scenarios.js';
import type { ScenarioRuns } from './summarize.js';

/** Each cost scenario: a warm-up, then `runs` conversations of `turns` on both drivers. */
export const measureScenarios = async (
  stack: LocalStack,
  model: SwitchModel,
  meter: DynamoDbMeter,
  options: { turns: number; runs: number },
  progress: (message: string) => void
): Promise<ScenarioRuns[]> => {
  const rows: ScenarioRuns[] = [];
  for (const scenario of SCENARIOS) {
    // A warm-up conversation (not counted): JIT, connections, DynamoDB Local's first writes.
    const budgeted = scenario.budgeted === true;
    const warmup = scriptFor(scenario.calls, Math.min(options.turns, WARMUP_TURNS), budgeted);
    await runLocal(stack, model, meter, warmup);
    await runInProcess(warmup);
    const row: ScenarioRuns = { scenario, local: [], inProcessMs: [] };
    for (let run = 0; run < options.runs; run++) {
      const script = () => scriptFor(scenario.calls, options.turns, budgeted);
      row.local.push(await runLocal(stack, model, meter, script()));
      row.inProcessMs.push((await runInProcess(script())).wallMs);
    }
    const counts = new Set(row.local.map((run) => `${run.transitions}/${run.events}`));
    if (counts.size > 1) progress(`note: ${scenario.label}: counts varied between runs`);
    rows.push(row);
    progress(`${scenario.label}: done`);
  }
  return rows;
};
