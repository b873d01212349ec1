import type { RegisteredAgent } from '../../ports/agent-directory.js';
import type { IntrinsicTool } from '../tool.js';
import { askParticipant } from './ask-participant.js';
import { completeStep } from './complete-step.js';
import { createPlan } from './create-plan.js';
import { createTaskForParticipant } from './create-task-for-participant.js';
import { meetCriterion } from './meet-criterion.js';
import { setParticipantRole } from './set-participant-role.js';
import { spawnSubtask, spawnSubtaskFor } from './spawn-subtask.js';

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

/** The intrinsics, with spawn_subtask's description naming the registered remote agents. */
export const intrinsicsFor = (agents: readonly RegisteredAgent[]): readonly IntrinsicTool[] =>
  agents.length === 0
    ? INTRINSICS
    : INTRINSICS.map((tool) => (tool.name === spawnSubtask.name ? spawnSubtaskFor(agents) : tool));
