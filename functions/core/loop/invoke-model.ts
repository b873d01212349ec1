import { TaskState } from '@a2a-js/sdk';
import type { ModelResponse } from '../ports/model.js';
import { assembleContext } from './context.js';
import type { LoopDeps } from './deps.js';
import type { HistoryEntry } from './history.schema.js';
import { loadRecord, mutateRecord } from './records.js';
import type { StepResult, TurnRef } from './route.schema.js';
import { endTask } from './status.js';
import { costOf, withCall } from './usage.js';

const routeAfter = (ref: TurnRef, response: ModelResponse): StepResult =>
  response.toolCalls.length === 0
    ? { ref, route: { next: 'finish' } }
    : {
        ref,
        route: {
          next: 'execute_tools',
          calls: response.toolCalls.map((call) => ({ ref, callId: call.id })),
        },
      };

/**
 * Calls the model once for turn `ref.turn + 1`. The response is stored before the route is
 * returned, keyed by (generation, turn): a retried state reuses it and never calls the model
 * twice. Tool calls come only from the response's structured calls, filtered by the
 * `tool_calls.extracted` hooks.
 */
export const invokeModel = async (deps: LoopDeps, ref: TurnRef): Promise<StepResult> => {
  const record = await loadRecord(deps, ref.taskId);
  if (record.loop.generation !== ref.generation) return { ref, route: { next: 'superseded' } };
  const next = { ...ref, turn: ref.turn + 1 };
  if (record.loop.turn === next.turn && record.loop.response !== null) {
    return routeAfter(next, record.loop.response);
  }
  if (record.loop.turn >= deps.config.maxTurns) {
    return endTask(deps, record, ref, TaskState.TASK_STATE_FAILED, 'turn limit reached');
  }

  const taskId = ref.taskId;
  const responseKey = `response:${ref.generation}:${next.turn}`;
  const history = await deps.store.readHistory(taskId, record.loop.compactedThrough);
  const { request, characters } = assembleContext({
    record,
    history,
    tools: deps.tools,
    config: deps.config,
  });
  const stored =
    (await deps.store.getOnce<ModelResponse>(taskId, responseKey)) ??
    (await deps.store.putOnce(taskId, responseKey, await deps.model.invoke(request)));
  const toolCalls = await deps.hooks.run(
    'tool_calls.extracted',
    { taskId, calls: stored.toolCalls },
    (context) => context.calls
  );
  const response: ModelResponse = { ...stored, toolCalls };

  let seq = record.loop.historySeq;
  const entries: HistoryEntry[] = [];
  if (response.text !== '')
    entries.push({ seq: ++seq, kind: 'assistant_message', text: response.text });
  for (const call of toolCalls) {
    entries.push({
      seq: ++seq,
      kind: 'tool_call',
      callId: call.id,
      name: call.name,
      arguments: call.arguments,
    });
  }
  await deps.store.appendHistory(taskId, entries);
  await mutateRecord(deps, taskId, (current) => {
    if (current.loop.turn !== ref.turn) return undefined;
    const { usage } = current.loop;
    const prices = deps.config.prices ?? {};
    const cost = costOf(response.usage, prices[response.model] ?? prices[request.model ?? '']);
    return {
      ...current,
      task: withCall(current.task, response.usage, cost),
      loop: {
        ...current.loop,
        turn: next.turn,
        toolCalls: current.loop.toolCalls + toolCalls.length,
        historySeq: seq,
        response,
        appliedCalls: [],
        needsModel: false,
        unreadResults: 0,
        lastInputTokens: response.usage.inputTokens,
        lastRequestChars: characters,
        usage: {
          inputTokens: usage.inputTokens + response.usage.inputTokens,
          cachedInputTokens: usage.cachedInputTokens + response.usage.cachedInputTokens,
          outputTokens: usage.outputTokens + response.usage.outputTokens,
        },
      },
    };
  });
  return routeAfter(next, response);
};
