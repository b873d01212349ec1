import { MAX_EXTENSION_BYTES, type TaskExtension } from '../task/extension.schema.js';
import { jsonBytes } from '../utf8-bytes.js';
import type { Command } from './commands.js';
import { refuse, type ToolOutcome } from './tool.js';

/** What one sub-task row adds at most: the row, a failure reason, its link on a plan step. */
export const SUB_TASK_ROW_BYTES = 800;

/** How much a command can add to the extension, in bytes (pure; zero or less: it adds nothing). */
const growthOf = (command: Command, extension: TaskExtension): number => {
  switch (command.kind) {
    case 'attach_plan':
      return jsonBytes(command.plan) - jsonBytes(extension.plan);
    case 'complete_step':
      return jsonBytes(command.output);
    case 'spawn_subtask':
    case 'create_participant_task':
      return SUB_TASK_ROW_BYTES;
    case 'wait_for_reply':
      return jsonBytes(command.question) + jsonBytes(command.options);
    case 'meet_criterion':
      return jsonBytes(command.evidence);
    case 'set_role':
      return 0;
  }
};

const whatToDo: Record<Command['kind'], string> = {
  attach_plan:
    'make the plan smaller (fewer steps, shorter descriptions), and put the detail in the sub-tasks that carry the steps out',
  complete_step:
    "give a shorter output (one paragraph), and put a long result in a sub-task's answer or an artifact",
  spawn_subtask: "do the work here, or in a sub-task's own sub-tasks",
  create_participant_task: "do the work here, or in a sub-task's own sub-tasks",
  wait_for_reply: 'ask a shorter question, with fewer options',
  meet_criterion: 'give shorter evidence: link artifacts rather than quoting them',
  set_role: 'nothing to shorten',
};

const kb = (bytes: number) => `${Math.ceil(bytes / 1024)} KB`;

/**
 * A refusal when the command would take the task extension past `MAX_EXTENSION_BYTES`, saying how
 * large it is and what to do; undefined when it fits (pure). The record that carries the task is
 * one store item beside the loop state, and every Task event carries the task whole again: a
 * command refused here is a tool error the model can act on, where the store's own limit would
 * meet it mid-turn and fail the task.
 */
export const tooLargeFor = (
  command: Command,
  extension: TaskExtension
): ToolOutcome | undefined => {
  const growth = growthOf(command, extension);
  if (growth <= 0) return undefined;
  const size = jsonBytes(extension);
  if (size + growth <= MAX_EXTENSION_BYTES) return undefined;
  return refuse(
    'tool.refused',
    `this would take the task to about ${kb(size + growth)}, past the most one task holds (${kb(MAX_EXTENSION_BYTES)}; it holds ${kb(size)} now), so nothing was changed: ${whatToDo[command.kind]}`
  );
};
