import type { IntrinsicTool } from '../tool.js';
import { askParticipant } from './ask-participant.js';
import { completeStep } from './complete-step.js';
import { createPlan } from './create-plan.js';
import { createTaskForParticipant } from './create-task-for-participant.js';
import { meetCriterion } from './meet-criterion.js';
import { setParticipantRole } from './set-participant-role.js';
import { spawnSubtask } from './spawn-subtask.js';

/** The intrinsic tools in scope of tasks-and-plans, by name. */
export const INTRINSICS: readonly IntrinsicTool[] = [
  askParticipant,
  completeStep,
  createPlan,
  createTaskForParticipant,
  meetCriterion,
  setParticipantRole,
  spawnSubtask,
];
