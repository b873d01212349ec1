import * as z from 'zod';
import { defineIntrinsic, refuse } from '../tool.js';
import { isParticipant, resolveStepArgument } from './step-argument.js';
import { fullOfSubTasks } from './sub-task-room.js';

export const CreateTaskForParticipantInputSchema = z.strictObject({
  participant_id: z.string().min(1),
  name: z.string().min(1),
  goal: z.string().min(1),
  acceptance_criteria: z.array(z.string().min(1)).default([]),
  step: z.string().nullable().default(null),
});

export const createTaskForParticipant = defineIntrinsic({
  name: 'create_task_for_participant',
  description:
    'Create a task assigned to a participant whose work must finish before this one can.',
  input: CreateTaskForParticipantInputSchema,
  idempotent: false,
  run: (args, { extension }) => {
    const full = fullOfSubTasks(extension);
    if (full !== undefined) return full;
    if (!isParticipant(extension, args.participant_id)) {
      return refuse('channel.not_a_member', 'no such participant on this task');
    }
    const step = resolveStepArgument(extension, args.step);
    if ('refused' in step) return step.refused;
    return {
      ok: true,
      command: {
        kind: 'create_participant_task',
        participantId: args.participant_id,
        name: args.name,
        goal: args.goal,
        acceptanceCriteria: args.acceptance_criteria,
        stepId: step.stepId,
      },
      result: `task ${args.name} created for ${args.participant_id}`,
    };
  },
});
