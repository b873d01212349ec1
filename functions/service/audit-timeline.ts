import type { AuditSources } from '../core/audit/sources.js';
import type { Timeline } from '../core/audit/timeline.schema.js';
import type { ModelPrices } from '../core/loop/usage.js';
import { toA2aError } from './a2a-errors.js';
import { readTimeline } from './read-timeline.js';

/** GetTaskTimeline (the audit extension): the caller's task's timeline, or an A2A error. */
export const taskTimeline = async (
  audit: {
    sources: AuditSources;
    prices: ModelPrices;
    traceOf?: ((taskId: string) => Promise<string | null>) | undefined;
  },
  request: { taskId: string; caller: string; subTasks: boolean }
): Promise<Timeline> => {
  try {
    return await readTimeline(audit.sources, {
      taskId: request.taskId,
      participantId: request.caller,
      subTasks: request.subTasks,
      prices: audit.prices,
      traceOf: audit.traceOf,
    });
  } catch (error) {
    throw toA2aError(error);
  }
};
