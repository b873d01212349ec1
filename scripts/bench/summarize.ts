/** From what the runs measured to the figures the benchmark reports (pure). */
import { DEFAULT_LOOP_CONFIG } from '../../functions/core/loop/config.js';
import type { BenchFigures, ScenarioFigures } from './figures.js';
import { HISTORY_LIMIT, LAMBDA_MEMORY_GB, PRICES } from './prices.js';
import type { LocalRun, Scenario } from './scenarios.js';
import { median, medianAround, ratio, turnDurations } from './stats.js';

export interface ScenarioRuns {
  scenario: Scenario;
  local: LocalRun[];
  inProcessMs: number[];
}

const perTurnOf = (runs: readonly LocalRun[], pick: (run: LocalRun) => number) =>
  median(runs.map((run) => pick(run) / run.turns));

/** A map's values per turn, from one run (counts are identical across runs). */
const mapPerTurn = (map: ReadonlyMap<string, number> | undefined, turns: number) =>
  Object.fromEntries(
    [...(map ?? new Map<string, number>()).entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([key, value]) => [key, value / turns])
  );

export const scenarioFigures = ({
  scenario,
  local,
  inProcessMs,
}: ScenarioRuns): ScenarioFigures => {
  const perTurn = (pick: (run: LocalRun) => number) => perTurnOf(local, pick);
  const first = local[0];
  const turns = first?.turns ?? 0;
  const transitions = perTurn((run) => run.transitions);
  const invocations = perTurn((run) => run.turnStepInvocations + run.a2aInvocations);
  const billedSeconds = perTurn((run) => run.turnStepBilledMs + run.a2aBilledMs) / 1000;
  const events = perTurn((run) => run.events);
  const stepFunctions = transitions * 1000 * PRICES.stateTransition;
  const lambda =
    invocations * 1000 * PRICES.lambdaRequest +
    billedSeconds * 1000 * LAMBDA_MEMORY_GB * PRICES.lambdaGbSecondArm64;
  // Write units as AWS bills them, not as DynamoDB Local reports them.
  const billedWriteUnits = perTurn((run) => run.billedWriteUnits);
  const dynamodb =
    perTurn((run) => run.readUnits) * 1000 * PRICES.readRequestUnit +
    billedWriteUnits * 1000 * PRICES.writeRequestUnit;
  const localMs = perTurn((run) => run.wallMs);
  const inProcess = median(inProcessMs.map((ms) => ms / Math.max(1, turns)));
  return {
    label: scenario.label,
    turns,
    messages: first?.messages ?? 0,
    runs: local.length,
    transitions_per_turn: transitions,
    history_events_per_turn: events,
    turns_per_generation: events > 0 ? Math.floor(HISTORY_LIMIT / events) : 0,
    lambda_invocations_per_turn: invocations,
    ddb_reads_per_turn: perTurn((run) => run.readRequests),
    ddb_writes_per_turn: perTurn((run) => run.writeRequests),
    rru_per_turn: perTurn((run) => run.readUnits),
    wru_per_turn: perTurn((run) => run.writeUnits),
    wru_billed_per_turn: billedWriteUnits,
    usd_per_1000_turns: stepFunctions + lambda + dynamodb,
    usd_per_1000_turns_by_service: { step_functions: stepFunctions, lambda, dynamodb },
    local_ms_per_turn: localMs,
    handlers_ms_per_turn: perTurn((run) => run.turnStepMs),
    ddb_ms_per_turn: perTurn((run) => run.ddbMs),
    inprocess_ms_per_turn: inProcess,
    overhead_ratio: ratio(localMs, inProcess),
    states_per_turn: mapPerTurn(first?.statesEntered, turns),
    ddb_commands_per_turn: mapPerTurn(first?.commands, turns),
    ddb_items_per_turn: mapPerTurn(first?.items, turns),
    refused_writes: local.reduce((sum, run) => sum + run.failedWrites, 0),
  };
};

/**
 * Whether the default renewal threshold keeps a generation under the history limit, and how many
 * tool calls per turn it allows (from the 1- and 4-call scenarios' events per turn).
 */
export const renewalFigures = (
  scenarios: NonNullable<BenchFigures['scenarios']>
): NonNullable<BenchFigures['renewal']> => {
  const threshold = DEFAULT_LOOP_CONFIG.turnsPerGeneration;
  const all = [scenarios.chat, scenarios.one_tool, scenarios.four_tools];
  const worst = Math.max(...all.map((s) => s.history_events_per_turn));
  const perCall =
    (scenarios.four_tools.history_events_per_turn - scenarios.one_tool.history_events_per_turn) / 3;
  const base = scenarios.one_tool.history_events_per_turn - perCall;
  return {
    threshold_turns: threshold,
    worst_events_per_turn: worst,
    projected_events: Math.round(threshold * worst),
    history_limit: HISTORY_LIMIT,
    events_per_turn_base: base,
    events_per_tool_call: perCall,
    max_average_tool_calls:
      perCall > 0 ? Math.max(0, (HISTORY_LIMIT / threshold - base) / perCall) : 0,
  };
};

/** Per-turn time early and late in one conversation, from its turns' start times. */
export const growthOf = (
  callTimes: readonly number[],
  early: number,
  late: number,
  window: number
) => {
  const durations = turnDurations(callTimes);
  const earlyMs = medianAround(durations, early, window);
  const lateMs = medianAround(durations, late, window);
  return { early_ms: earlyMs, late_ms: lateMs, ratio: ratio(lateMs, earlyMs) };
};
