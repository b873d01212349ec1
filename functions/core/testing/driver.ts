import type { LoopDeps } from '../loop/deps.js';
import { executeTool } from '../loop/execute-tool.js';
import { park } from '../loop/park.js';
import { renew } from '../loop/renew.js';
import type { StepResult, TurnRef } from '../loop/route.schema.js';
import { takeTurn } from '../loop/take-turn.js';
import type { SubState, TaskStateName } from '../task/extension.schema.js';
import { readRecord } from '../unit-of-work/interpreter.js';

export type RunOutcome =
  | { kind: 'parked'; subState: SubState | null; ref: TurnRef; token: string }
  | { kind: 'ended'; state: TaskStateName }
  | { kind: 'superseded' };

/**
 * The in-process driver: the same operations the state machine calls one state at a time,
 * looped here for tests and for measuring the orchestration's overhead. Runs the task's current
 * generation until it parks or ends.
 */
export const runTask = async (deps: LoopDeps, taskId: string): Promise<RunOutcome> => {
  const record = await readRecord(deps, taskId);
  let step: StepResult = await takeTurn(deps, {
    taskId,
    generation: record.loop.generation,
    turn: record.loop.turn,
  });
  for (;;) {
    const { ref, route } = step;
    switch (route.next) {
      case 'execute_tools':
        for (const call of route.calls) await executeTool(deps, call);
        step = await takeTurn(deps, ref);
        break;
      case 'park': {
        const token = deps.ids.next('token');
        const { wakeNow } = await park(deps, ref, token, route.decidedOn);
        if (!wakeNow) return { kind: 'parked', subState: route.subState, ref, token };
        step = await takeTurn(deps, ref);
        break;
      }
      case 'renew':
        step = await takeTurn(deps, await renew(deps, ref));
        break;
      case 'end':
        return { kind: 'ended', state: route.state };
      case 'superseded':
        return { kind: 'superseded' };
      default:
        // The turn goes on (a drain, the model, the finish): the next turn state takes it.
        step = await takeTurn(deps, ref);
    }
  }
};
