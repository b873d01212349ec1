import type { Runtime } from '../composition/runtime.js';
import { reviveTask } from '../core/intake/revive.js';
import { isTerminalState, stateOf } from '../core/task/a2a-task.js';
import { followWake } from '../service/follow-wake.js';

/**
 * After a restart (and the engine's rehydration of its checkpoints): every task that has not
 * ended but whose execution is not running is revived in a new generation. That covers what a
 * crash can leave without a checkpoint: a task created just before its first execution
 * started, or parked on a token whose park was not checkpointed yet. Returns the revived ids.
 */
export const reviveOrphans = async (runtime: Runtime): Promise<string[]> => {
  const { loop, executions } = runtime;
  const revived: string[] = [];
  for (const record of await loop.store.list({})) {
    const { generation } = record.loop;
    if (isTerminalState(stateOf(record.task))) continue;
    if (await executions.isRunning(record.task.id, generation)) continue;
    const wake = await reviveTask(loop, record.task.id, generation, { parkedExecutionGone: true });
    if (wake.action === 'none') continue;
    await followWake(runtime, wake);
    revived.push(record.task.id);
  }
  return revived;
};
