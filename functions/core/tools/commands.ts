import type { Budget, CriterionEvidence, Plan, Role } from '../task/extension.schema.js';

/**
 * What an intrinsic tool asks the loop to do. A command is plain data; the loop applies it to
 * the task deterministically, with no I/O of its own (creating a child is the one effect, and it
 * goes through the agent directory port after the command is recorded).
 */
export type Command =
  | { kind: 'attach_plan'; plan: Plan }
  | { kind: 'complete_step'; stepId: string; output: string }
  | {
      kind: 'spawn_subtask';
      name: string;
      goal: string;
      acceptanceCriteria: string[];
      /** A registered remote agent id, or null for a child on this harness. */
      agent: string | null;
      stepId: string | null;
      /** The child's own budget, within what this task's has left (a child on this harness). */
      budget: Budget | null;
    }
  | { kind: 'wait_for_reply'; participantId: string; question: string; options: string[] }
  | {
      kind: 'create_participant_task';
      participantId: string;
      name: string;
      goal: string;
      acceptanceCriteria: string[];
      stepId: string | null;
    }
  | { kind: 'set_role'; participantId: string; role: Role }
  | {
      kind: 'meet_criterion';
      criterionId: string;
      evidence: CriterionEvidence;
      metBy: string;
      metAt: string;
    };

export type CommandKind = Command['kind'];
