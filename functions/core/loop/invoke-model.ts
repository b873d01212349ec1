import type { ModelRequest, ModelResponse, ModelToolCall } from '../ports/model.js';
import { utf8Bytes } from '../utf8-bytes.js';
import type { LoopConfig } from './config.js';
import type { HistoryEntry } from './history.schema.js';
import type { InboxItemDraft } from './inbox.schema.js';
import { priceOf } from './prices.js';
import type { Change } from './records.js';
import type { StepResult, TurnRef } from './route.schema.js';
import { costOf, withCall } from './usage.js';

/**
 * The most tool calls of one model response that run. Each is a transcript entry of the
 * response's commit, which is one transaction of at most 100 writes; past this, the rest are not
 * made, and the model is told which in a harness note it reads after the results.
 */
export const MAX_TOOL_CALLS_PER_RESPONSE = 64;

/**
 * The most bytes of arguments one response's tool calls carry. The response is held in the task
 * record until its calls are applied, and written again in the transcript and the audit record,
 * each one store item (400 KB at most, beside the task): past this, the calls from the first that
 * does not fit are not made, and the model is told which.
 */
export const MAX_TOOL_ARGUMENT_BYTES_PER_RESPONSE = 96 * 1024;

/** How many of the calls, in order, fit both limits. */
const callsThatFit = (toolCalls: readonly ModelToolCall[]): number => {
  let bytes = 0;
  for (const [index, toolCall] of toolCalls.entries()) {
    bytes += utf8Bytes(toolCall.arguments);
    if (index >= MAX_TOOL_CALLS_PER_RESPONSE || bytes > MAX_TOOL_ARGUMENT_BYTES_PER_RESPONSE)
      return index;
  }
  return toolCalls.length;
};

/**
 * The call with at most `MAX_TOOL_CALLS_PER_RESPONSE` tool calls carrying at most
 * `MAX_TOOL_ARGUMENT_BYTES_PER_RESPONSE` of arguments (the first ones, in the model's order), and
 * the note that tells the model the others were not made and why (pure).
 */
export const withinToolCallLimit = (
  call: ModelCall,
  ref: TurnRef
): { call: ModelCall; note?: InboxItemDraft } => {
  const { toolCalls } = call.response;
  const kept = callsThatFit(toolCalls);
  if (kept === toolCalls.length) return { call };
  const dropped = toolCalls.slice(kept);
  const names = dropped.map((toolCall) => `${toolCall.name} (${toolCall.id})`).join(', ');
  const why =
    kept >= MAX_TOOL_CALLS_PER_RESPONSE
      ? `at most ${MAX_TOOL_CALLS_PER_RESPONSE} run per response`
      : `the calls of one response carry at most ${MAX_TOOL_ARGUMENT_BYTES_PER_RESPONSE / 1024} KB of arguments`;
  return {
    call: {
      ...call,
      response: { ...call.response, toolCalls: toolCalls.slice(0, kept) },
    },
    note: {
      kind: 'harness_note',
      id: `tool-calls-dropped:${ref.generation}:${ref.turn}`,
      topic: 'tool_calls_dropped',
      criteria: [],
      text: `Your last response asked for ${toolCalls.length} tool calls; ${why}, so these were not made: ${names}. Ask for those still needed in your next response${kept >= MAX_TOOL_CALLS_PER_RESPONSE ? '' : ', with smaller arguments'}.`,
    },
  };
};

/** Where a turn goes after the model answered: its tool calls, or the turn's end. */
export const routeAfter = (ref: TurnRef, response: ModelResponse): StepResult =>
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
  /**
   * The transcript's last seq the call was shown (its response's entries follow it): where the
   * turn begins for a fork "before turn N + 1". Absent from records written before it was kept.
   */
  history_seq?: number;
}

export const responseKey = (ref: TurnRef) => `response:${ref.generation}:${ref.turn}`;

/** One model call as the turn commits it: the response, the request's size, the auditor's record. */
export interface ModelCall {
  response: ModelResponse;
  characters: number;
  record: ModelCallRecord;
}

/** The call the model answered (its tool calls as the hooks left them), priced and timed. */
export const modelCallOf = (options: {
  request: ModelRequest;
  characters: number;
  response: ModelResponse;
  prices: LoopConfig['prices'];
  startedAt: string;
  at: string;
}): ModelCall => {
  const { request, characters, response, startedAt, at } = options;
  const prices = options.prices ?? {};
  return {
    response,
    characters,
    record: {
      ...response,
      requested_model: request.model ?? null,
      reasoning_effort: request.reasoningEffort ?? null,
      cost_usd: costOf(response.usage, priceOf(prices, response.model, request.model)),
      latency_ms: Math.max(0, Date.parse(at) - Date.parse(startedAt)),
      at,
    },
  };
};

/** A model call made for turn `next.turn`, as it is committed (pure). */
export const withModelResponse = (change: Change, next: TurnRef, call: ModelCall): Change => {
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
        value: {
          ...call.record,
          after_event_seq: change.record.eventSeq + change.events.length,
          history_seq: loop.historySeq,
        },
      },
    ],
  };
};
