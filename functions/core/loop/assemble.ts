import { type CompactionRecord, compactionFor, withCompaction } from './compaction.js';
import type { LoopDeps } from './deps.js';
import { changeOf, decideAndCommit, decided, loadRecord } from './records.js';
import type { StepResult, TurnRef } from './route.schema.js';

/**
 * Prepares the context for the model call: compacts first when over budget. The request itself
 * is rebuilt from the store by the model state (it is deterministic), so no transcript ever
 * travels in a state payload. A summary is made once per attempt and committed with the loop
 * state that uses it, so a retried state finds the transcript compacted and does not compact it
 * again.
 */
export const assemble = async (deps: LoopDeps, ref: TurnRef): Promise<StepResult> => {
  let compaction: CompactionRecord | undefined;
  const { result } = await decideAndCommit(
    deps,
    async () => {
      const record = await loadRecord(deps, ref.taskId);
      const history = await deps.store.readHistory(ref.taskId, record.loop.compactedThrough);
      return { record, history };
    },
    async ({ record, history }) => {
      if (record.loop.generation !== ref.generation) {
        return { result: { ref, route: { next: 'superseded' } } satisfies StepResult };
      }
      const next: StepResult = { ref, route: { next: 'invoke_model' } };
      compaction ??= await compactionFor(deps, ref, record, history);
      if (compaction === undefined) return { result: next };
      return decided(record, withCompaction(changeOf(record), ref, compaction), next);
    }
  );
  return result;
};
