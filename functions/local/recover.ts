import type { Runtime } from '../composition/runtime.js';
import { reviveTask } from '../core/intake/revive.js';
import { lostWakeOf } from '../core/loop/park-token.js';
import { isTerminalState, stateOf } from '../core/task/a2a-task.js';

/**
 * After a restart (and the engine's rehydration of its checkpoints): a wake the crash cut short
 * is sent again (a task whose token a waker claimed, a message, a completion or an approval with
 * it, but whose task success never left: `lostWakeOf`), and every task that has not ended but
 * whose execution is not running is revived in a new generation. That covers what a crash can
 * leave without a checkpoint: a task created just before its first execution started, or parked
 * on a token whose park was not checkpointed yet. Returns the ids it woke or revived.
 */
export const reviveOrphans = async (runtime: Runtime): Promise<string[]> => {
  const { loop, executions } = runtime;
  const revived: string[] = [];
  for (const record of await loop.store.list({})) {
    const { generation } = record.loop;
    if (isTerminalState(stateOf(record.task))) continue;
    const lost = lostWakeOf(record);
    if (lost !== undefined && (await executions.resume(lost.token))) {
      runtime.logger.info('a wake lost in the crash sent again', { taskId: record.task.id });
      revived.push(record.task.id);
      continue;
    }
    if (await executions.isRunning(record.task.id, generation)) continue;
    const wake = await reviveTask(loop, record.task.id, generation, { parkedExecutionGone: true });
    if (wake.action !== 'none') revived.push(record.task.id);
  }
  return revived;
};
