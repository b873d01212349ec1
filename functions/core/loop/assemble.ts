import { compactIfOverBudget } from './compaction.js';
import type { LoopDeps } from './deps.js';
import { loadRecord } from './records.js';
import type { StepResult, TurnRef } from './route.schema.js';

/**
 * Prepares the context for the model call: compacts first when over budget. The request itself
 * is rebuilt from the store by the model state (it is deterministic), so no transcript ever
 * travels in a state payload.
 */
export const assemble = async (deps: LoopDeps, ref: TurnRef): Promise<StepResult> => {
  const record = await loadRecord(deps, ref.taskId);
  if (record.loop.generation !== ref.generation) return { ref, route: { next: 'superseded' } };
  const history = await deps.store.readHistory(ref.taskId, record.loop.compactedThrough);
  await compactIfOverBudget(deps, ref, record, history);
  return { ref, route: { next: 'invoke_model' } };
};
