import type { TaskState } from '@a2a-js/sdk';
import type { HookPointTypes } from '../hooks/hooks.js';
import type { ModelToolCall } from '../ports/model.js';
import type { AcceptanceCriterion, Plan, SubState, SubTaskRow } from '../task/extension.schema.js';
import type { Invocation } from '../tools/invoker.js';
import type { HistoryEntry } from './history.schema.js';

export type CompletionVerdict =
  | { decision: 'complete' }
  | { decision: 'wait'; reason: string }
  | { decision: 'fail'; reason: string }
  /** Acceptance criteria unmet: the model is told which and works on, or the task awaits review. */
  | { decision: 'unmet'; reason: string; criteria: string[] };

/** The hook points the loop exposes, with each point's context and result. */
export interface HarnessHookPoints extends HookPointTypes {
  /** Around attaching a plan (create_plan's command): rewrite or veto the plan. */
  'plan.created': { context: { taskId: string; plan: Plan }; result: Plan };
  /** Around the tool calls taken from a model response: filter or rewrite them. */
  'tool_calls.extracted': {
    context: { taskId: string; calls: ModelToolCall[] };
    result: ModelToolCall[];
  };
  /** Around one call through the validating invoker: rewrite or veto that call. */
  'tool.invoked': { context: { taskId: string; call: ModelToolCall }; result: Invocation };
  'compaction.trigger': {
    context: { taskId: string; estimatedTokens: number; budgetTokens: number };
    result: boolean;
  };
  'compaction.keep': { context: { taskId: string; sections: string[] }; result: string[] };
  'compaction.summarise': {
    context: { taskId: string; previousSummary: string | null; entries: HistoryEntry[] };
    result: { summary: string; removedThrough: number };
  };
  /**
   * decide_completion: the built-in body waits while a sub-task is unresolved, and keeps a
   * delegated task from completing by itself while an acceptance criterion is unmet.
   */
  'task.complete': {
    context: {
      taskId: string;
      unresolved: SubTaskRow[];
      /**
       * The acceptance criteria not met (a reporter's or an admin's completion accepts them as
       * they are).
       */
      unmet: AcceptanceCriterion[];
      requestedBy: string | null;
      /** Whether the participant asking may accept unmet criteria (a reporter or an admin). */
      acceptsUnmet: boolean;
      result: string;
    };
    result: CompletionVerdict;
  };
  'task.state_changed': {
    context: { taskId: string; from: TaskState; to: TaskState; subState: SubState | undefined };
    result: undefined;
  };
}
