import { applyLinkedTaskState, completeStep, linkTask } from '../plan/plan.js';
import type { ChildCreated } from '../ports/agent-directory.js';
import { stateName } from '../task/a2a-task.js';
import { withCriterionMet } from '../task/criteria.js';
import type { SubTaskRow, TaskExtension, TaskRef } from '../task/extension.schema.js';
import type { Command } from '../tools/commands.js';
import type { LoopState } from './loop-state.schema.js';

export interface CommandTarget {
  extension: TaskExtension;
  loop: LoopState;
}

/** The sub-task row for a child as its agent reported it on creation. */
export const childRow = (agent: string | null, created: ChildCreated): SubTaskRow => ({
  task_id: created.taskId,
  agent: agent === null ? null : { kind: 'agent', id: agent, version: null },
  state: stateName(created.state),
  sub_state: created.subState ?? null,
  criteria: null,
});

const addChild = (target: CommandTarget, row: SubTaskRow, stepId: string | null): CommandTarget => {
  const { extension } = target;
  const ref: TaskRef = { task_id: row.task_id, agent: row.agent };
  const known = extension.sub_tasks.some((existing) => existing.task_id === row.task_id);
  // The row may already be there: the child's first state change can reach the parent (through
  // the stream) before the command that created it is applied. The newer row wins.
  const current = extension.sub_tasks.find((existing) => existing.task_id === row.task_id) ?? row;
  let plan = extension.plan;
  if (plan !== null && stepId !== null) {
    plan = applyLinkedTaskState(linkTask(plan, stepId, ref), row.task_id, current.state);
  }
  return {
    ...target,
    extension: {
      ...extension,
      plan,
      sub_tasks: known ? extension.sub_tasks : [...extension.sub_tasks, row],
    },
  };
};

/**
 * Applies an intrinsic's command to the task: pure, deterministic, no I/O. A command that
 * created a child is applied with the child the agent directory returned.
 */
export const applyCommand = (
  target: CommandTarget,
  command: Command,
  applied: { callId: string; created?: ChildCreated | undefined }
): CommandTarget => {
  const { created } = applied;
  const { extension, loop } = target;
  switch (command.kind) {
    case 'attach_plan':
      return { ...target, extension: { ...extension, plan: command.plan } };
    case 'complete_step':
      if (extension.plan === null) return target;
      return {
        ...target,
        extension: {
          ...extension,
          plan: completeStep(extension.plan, command.stepId, command.output),
        },
      };
    case 'spawn_subtask':
    case 'create_participant_task': {
      if (created === undefined) throw new Error(`${command.kind} needs the created child`);
      const agent = command.kind === 'spawn_subtask' ? command.agent : null;
      return addChild(target, childRow(agent, created), command.stepId);
    }
    case 'wait_for_reply':
      return {
        ...target,
        loop: {
          ...loop,
          pendingQuestion: {
            participantId: command.participantId,
            question: command.question,
            options: command.options,
            callId: applied.callId,
          },
        },
      };
    case 'meet_criterion':
      return {
        // A criterion met is progress: the reminders before a review start again.
        loop: { ...loop, criteriaReminders: 0 },
        extension: withCriterionMet(extension, command.criterionId, {
          evidence: command.evidence,
          by: command.metBy,
          at: command.metAt,
        }),
      };
    case 'set_role':
      return {
        ...target,
        extension: {
          ...extension,
          participants: extension.participants.map((participant) =>
            participant.id === command.participantId
              ? { ...participant, role: command.role }
              : participant
          ),
        },
      };
  }
};
