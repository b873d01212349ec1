import { resolveStep } from '../../plan/plan.js';
import type { TaskExtension } from '../../task/extension.schema.js';
import { refuse, type ToolOutcome } from '../tool.js';

/**
 * Resolves an optional `step` argument (id or name) to a step id. Unlike the reference, a name
 * resolves too, so passing the display name never silently links nothing.
 */
export const resolveStepArgument = (
  extension: TaskExtension,
  step: string | null
): { stepId: string | null } | { refused: ToolOutcome } => {
  if (step === null) return { stepId: null };
  if (extension.plan === null) {
    return { refused: refuse('plan.missing', 'no plan; call create_plan first') };
  }
  const found = resolveStep(extension.plan, step);
  if (found === undefined) {
    return {
      refused: refuse('plan.unknown_step', `no step with id or name ${JSON.stringify(step)}`),
    };
  }
  return { stepId: found.id };
};

export const isParticipant = (extension: TaskExtension, participantId: string): boolean =>
  extension.participants.some((participant) => participant.id === participantId);
