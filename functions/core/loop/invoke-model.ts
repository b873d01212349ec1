import type { ModelRequest, ModelResponse } from '../ports/model.js';
import type { LoopConfig } from './config.js';
import type { HistoryEntry } from './history.schema.js';
import { priceOf } from './prices.js';
import type { Change } from './records.js';
import type { StepResult, TurnRef } from './route.schema.js';
import { costOf, withCall } from './usage.js';

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
