import { TaskState } from '@a2a-js/sdk';
import type { ModelResponse } from '../ports/model.js';
import type { TaskRecord } from '../ports/task-store.js';
import { isTerminalState, stateOf } from '../task/a2a-task.js';
import { type CompactionRecord, compactionFor, withCompaction } from './compaction.js';
import type { LoopConfig } from './config.js';
import { type AssembledContext, assembleContext } from './context.js';
import type { LoopDeps } from './deps.js';
import { endOfTurn, finishTurn } from './finish.js';
import type { HistoryEntry } from './history.schema.js';
import { type InboxRead, withParkDecidedOn } from './park.js';
import {
  type Change,
  changeOf,
  type Decision,
  decideAndCommit,
  decided,
  loadRecord,
} from './records.js';
import type { StepResult, TurnRef } from './route.schema.js';
import { ended, endRoute } from './status.js';
import { currentRef } from './turn-position.js';
import { costOf, withCall } from './usage.js';

const routeAfter = (ref: TurnRef, response: ModelResponse): StepResult =>
  response.toolCalls.length === 0
    ? { ref, route: { next: 'turn' } }
    : {
        ref,
        route: {
          next: 'execute_tools',
          calls: response.toolCalls.map((call) => ({ ref, callId: call.id })),
        },
      };

/** What the auditor reads of a model call (`response:<generation>:<turn>`). */
export interface ModelCallRecord extends ModelResponse {
  requested_model: string | null;
  reasoning_effort: string | null;
  cost_usd: number;
  latency_ms: number;
  at: string;
  /**
   * The seq of the task's newest event when the call began: the timeline places the call after
   * it and before the events its own commit appends, whatever their timestamps (a scripted model
   * answers within the millisecond). Absent from records written before it existed.
   */
  after_event_seq?: number;
}

export const responseKey = (ref: TurnRef) => `response:${ref.generation}:${ref.turn}`;

/** A model call made for turn `next.turn`, as it is committed (pure). */
export const withModelResponse = (
  change: Change,
  next: TurnRef,
  call: { response: ModelResponse; characters: number; record: ModelCallRecord }
): Change => {
  const { response, characters } = call;
  const { loop, task } = change.record;
  let seq = loop.historySeq;
  const entries: HistoryEntry[] = [];
  if (response.text !== '')
    entries.push({ seq: ++seq, kind: 'assistant_message', text: response.text });
  for (const toolCall of response.toolCalls) {
    entries.push({
      seq: ++seq,
      kind: 'tool_call',
      callId: toolCall.id,
      name: toolCall.name,
      arguments: toolCall.arguments,
    });
  }
  return {
    ...change,
    record: {
      ...change.record,
      task: withCall(task, response.usage, call.record.cost_usd),
      loop: {
        ...loop,
        turn: next.turn,
        toolCalls: loop.toolCalls + response.toolCalls.length,
        historySeq: seq,
        response,
        appliedCalls: [],
        attemptedCalls: [],
        approvals: [],
        needsModel: false,
        unreadResults: 0,
        lastInputTokens: response.usage.inputTokens,
        lastRequestChars: characters,
        usage: {
          inputTokens: loop.usage.inputTokens + response.usage.inputTokens,
          cachedInputTokens: loop.usage.cachedInputTokens + response.usage.cachedInputTokens,
          outputTokens: loop.usage.outputTokens + response.usage.outputTokens,
        },
      },
    },
    history: [...change.history, ...entries],
    audit: [
      ...change.audit,
      {
        key: responseKey(next),
        value: { ...call.record, after_event_seq: change.record.eventSeq + change.events.length },
      },
    ],
  };
};

/** Whether the model may run for `ref` on this record; otherwise the route that replaces it. */
const routeInstead = (
  record: TaskRecord,
  ref: TurnRef,
  config: Pick<LoopConfig, 'maxTurns'>,
  now: string
): { result: StepResult; change?: Change } | undefined => {
  const state = stateOf(record.task);
  if (isTerminalState(state)) return { result: { ref, route: endRoute(state) } };
  if (record.loop.generation !== ref.generation)
    return { result: { ref, route: { next: 'superseded' } } };
  const next = { ...ref, turn: ref.turn + 1 };
  // A retried state whose response was committed: route on it, never call the model twice.
  if (record.loop.turn === next.turn && record.loop.response !== null) {
    return { result: routeAfter(next, record.loop.response) };
  }
  // Re-entered after the turn moved on (a restart from an earlier checkpoint): go on from where
  // the task is, never call the model for a turn already taken.
  if (record.loop.turn !== ref.turn) {
    return { result: { ref: currentRef(ref, record.loop), route: { next: 'turn' } } };
  }
  if (record.loop.turn >= config.maxTurns) {
    const failed = TaskState.TASK_STATE_FAILED;
    return {
      result: { ref, route: endRoute(failed) },
      change: ended(changeOf(record), ref, failed, 'turn limit reached', now),
    };
  }
  return undefined;
};

type ModelCall = { response: ModelResponse; characters: number; record: ModelCallRecord };

/** One model call on an assembled context; nothing is written. */
const callModel = async (
  deps: LoopDeps,
  taskId: string,
  { request, characters }: AssembledContext
): Promise<ModelCall> => {
  const startedAt = deps.clock.now();
  const answered = await deps.model.invoke(request);
  const at = deps.clock.now();
  const toolCalls = await deps.hooks.run(
    'tool_calls.extracted',
    { taskId, calls: answered.toolCalls },
    (context) => context.calls
  );
  const response: ModelResponse = { ...answered, toolCalls };
  const prices = deps.config.prices ?? {};
  return {
    response,
    characters,
    record: {
      ...response,
      requested_model: request.model ?? null,
      reasoning_effort: request.reasoningEffort ?? null,
      cost_usd: costOf(response.usage, prices[response.model] ?? prices[request.model ?? '']),
      latency_ms: Math.max(0, Date.parse(at) - Date.parse(startedAt)),
      at,
    },
  };
};

/**
 * The model's part of turn `ref.turn + 1`: compaction first when over budget, one model call,
 * and the response committed with the turn (its transcript entries, the usage, the record the
 * auditor reads) before the route is returned, so a retried state reuses it and never calls the
 * model twice. With `endTurn`, a response without tool calls also ends the turn in the same
 * commit (the park, the completion: `finishTurn`). The commit is conditioned on the task as it
 * was read before the call: if the turn was cut or the task ended meanwhile, nothing of the
 * response is written. Tool calls come only from the response's structured calls, filtered by
 * the `tool_calls.extracted` hooks. `first`: the record as the caller has just read it; `inbox`:
 * the inbox as the caller read it after that record, which lets a park it decides be committed
 * without a read (park.ts).
 */
export const respond = async (
  deps: LoopDeps,
  ref: TurnRef,
  options: { endTurn: boolean; first?: TaskRecord | undefined; inbox?: InboxRead | undefined }
): Promise<StepResult> => {
  const taskId = ref.taskId;
  const next = { ...ref, turn: ref.turn + 1 };
  let given = options.first;
  let compaction: CompactionRecord | undefined;
  let call: ModelCall | undefined;
  let decidedOn: TaskRecord | undefined;
  const { result, committed } = await decideAndCommit(
    deps,
    async () => {
      const record = given ?? (await loadRecord(deps, taskId));
      given = undefined;
      decidedOn = record;
      return record;
    },
    async (record): Promise<Decision<StepResult>> => {
      const instead = routeInstead(record, ref, deps.config, deps.clock.now());
      if (instead !== undefined) {
        return instead.change === undefined
          ? { result: instead.result }
          : decided(record, instead.change, instead.result);
      }
      let change = changeOf(record);
      if (call === undefined) {
        // The transcript as the record knows it: a later entry's commit would refuse this one's.
        const history = await deps.store.readHistory(
          taskId,
          record.loop.compactedThrough,
          record.loop.historySeq
        );
        const assemble = (context: TaskRecord) =>
          assembleContext({ record: context, history, tools: deps.tools, config: deps.config });
        const assembled = assemble(record);
        compaction ??= await compactionFor(deps, ref, record, history, assembled);
        call = await callModel(
          deps,
          taskId,
          compaction === undefined
            ? assembled
            : assemble(withCompaction(change, ref, compaction).record)
        );
      }
      if (compaction !== undefined) change = withCompaction(change, ref, compaction);
      change = withModelResponse(change, next, call);
      if (call.response.toolCalls.length > 0 || !options.endTurn) {
        return decided(record, change, routeAfter(next, call.response));
      }
      return endOfTurn(
        record,
        await finishTurn(deps, change, next, () => deps.store.readInbox(taskId))
      );
    }
  );
  const record = committed?.record ?? decidedOn;
  return options.inbox === undefined || record === undefined
    ? result
    : withParkDecidedOn(result, record, options.inbox);
};
