import type { CompactionRecord } from '../loop/compaction.js';
import type { AssembledContext } from '../loop/context.js';
import type { HistoryEntry } from '../loop/history.schema.js';
import type { CompletionVerdict, HarnessHookPoints } from '../loop/hook-points.js';
import type { InboxItem } from '../loop/inbox.schema.js';
import type { ModelCall } from '../loop/invoke-model.js';
import type { TurnRef } from '../loop/route.schema.js';
import type { ChildCreated, ChildRequest } from '../ports/agent-directory.js';
import type { ModelToolCall } from '../ports/model.js';
import type { BudgetEntry, TaskRecord } from '../ports/task-store.js';
import type { Invocation } from '../tools/invoker.js';
import type { IntrinsicContext } from '../tools/tool.js';

/**
 * What a decision asks for that it cannot know from what was read: each one data, performed by
 * the interpreter (perform.ts) and handed back to the decision by the key it was asked under.
 */
export type Effect =
  /** The task's inbox, as it is now. */
  | { kind: 'read_inbox'; taskId: string }
  /** Where a message id was taken in (its inbox seq), if it was. */
  | { kind: 'read_message_seq'; taskId: string; messageId: string }
  /** The transcript entries after `after`, through `through`. */
  | { kind: 'read_history'; taskId: string; after: number; through: number }
  /**
   * The compaction the next request needs if it is over budget (`null`: none), by its hooks, and
   * the request to send: `assembled`, or assembled again on the compacted transcript.
   */
  | {
      kind: 'compact';
      ref: TurnRef;
      record: TaskRecord;
      history: readonly HistoryEntry[];
      assembled: AssembledContext;
    }
  /**
   * A model call's worst case taken from every budget account it draws on (`reserve` commit),
   * before the call: all of it, or nothing and the first account that was short. Once per
   * `call`: a retried turn's reservation for the same call takes nothing again.
   */
  | { kind: 'reserve_budget'; taskId: string; call: string; holds: readonly BudgetEntry[] }
  /** One model call and the `tool_calls.extracted` hooks on what it answered. */
  | { kind: 'call_model'; taskId: string; context: AssembledContext }
  /** decide_completion, through the `task.complete` hooks. */
  | { kind: 'decide_completion'; context: HarnessHookPoints['task.complete']['context'] }
  /** One call through the validating invoker, inside its hooks (`tool.invoked`, `plan.created`). */
  | { kind: 'invoke_tool'; taskId: string; call: ModelToolCall; context: IntrinsicContext }
  /** A child task, on this harness or a remote agent (idempotent on its brief's message id). */
  | { kind: 'create_child'; request: ChildRequest };

export type EffectKind = Effect['kind'];

/** What each effect produces. */
export interface EffectResults {
  read_inbox: readonly InboxItem[];
  /** Null for a message id never taken in. */
  read_message_seq: number | null;
  read_history: readonly HistoryEntry[];
  compact: { record: CompactionRecord | null; context: AssembledContext };
  /** What was taken; `exhausted`, the account that was short (then nothing was taken). */
  reserve_budget: { holds: readonly BudgetEntry[]; exhausted: string | null };
  call_model: ModelCall;
  decide_completion: CompletionVerdict;
  invoke_tool: Invocation;
  create_child: ChildCreated;
}

/**
 * Effects whose result belongs to the snapshot they were asked on: taken again after every
 * conflict, since a task that moved on may read or decide differently. Every other effect acts
 * on the world (a model call, a tool, a child) and is performed once per operation: a retry
 * decides on what it produced, never repeats it.
 */
const OF_THE_SNAPSHOT: ReadonlySet<EffectKind> = new Set([
  'read_inbox',
  'read_message_seq',
  'read_history',
  'decide_completion',
]);

export const belongsToSnapshot = (kind: EffectKind): boolean => OF_THE_SNAPSHOT.has(kind);
