import {
  type ArchiveOutcome,
  archivedCopy,
  type ExecutionHistoryArchive,
  type LiveExecutionHistory,
} from '../core/audit/archive.js';

/**
 * Copies a closed execution's history into the archive. Idempotent (a redelivered trigger
 * rewrites the same copy); an execution still running, or gone, is left alone and said so.
 */
export const archiveExecution = async (
  deps: { live: LiveExecutionHistory; archive: ExecutionHistoryArchive },
  execution: { taskId: string; generation: number }
): Promise<ArchiveOutcome> => {
  if ((await deps.archive.read(execution.taskId, execution.generation)) !== undefined)
    return 'already archived';
  const live = await deps.live.read(execution.taskId, execution.generation);
  if (live === undefined) return 'not found';
  const copy = archivedCopy(live);
  if (copy === undefined) return 'not closed';
  await deps.archive.write(execution.taskId, execution.generation, copy);
  return 'archived';
};
