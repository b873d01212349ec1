import { HookAbortError } from '../errors.js';
import {
  compactionBudget,
  compactionOf,
  liveEntries,
  oldestHalf,
  type SummaryCall,
  summaryCallOf,
  summaryRequest,
} from '../loop/compaction.js';
import { builtInCompletion } from '../loop/completion.js';
import { estimateTokens, NEVER_COMPACT } from '../loop/context.js';
import type { LoopDeps } from '../loop/deps.js';
import { type ModelCall, modelCallOf } from '../loop/invoke-model.js';
import type { ModelToolCall } from '../ports/model.js';
import {
  type Invocation,
  type InvokeOptions,
  notRetried,
  outputOf,
  prepareCall,
} from '../tools/invoker.js';
import { errorResultText } from '../tools/tool.js';
import type { Effect, EffectResults } from './effects.js';

const aborted = (error: HookAbortError): Invocation => ({
  kind: 'error',
  code: 'hook.abort',
  text: errorResultText('hook.abort', error.message),
});

/** One model call, its tool calls through the `tool_calls.extracted` hooks. */
const callModel = async (
  deps: LoopDeps,
  { taskId, context }: Extract<Effect, { kind: 'call_model' }>
): Promise<ModelCall> => {
  const { request, characters } = context;
  const startedAt = deps.clock.now();
  const answered = await deps.model.invoke(request);
  const at = deps.clock.now();
  const toolCalls = await deps.hooks.run(
    'tool_calls.extracted',
    { taskId, calls: answered.toolCalls },
    (extracted) => extracted.calls
  );
  const response = { ...answered, toolCalls };
  return modelCallOf({ request, characters, response, prices: deps.config.prices, startedAt, at });
};

/**
 * The compaction a request over budget needs. Each point is a hook (`compaction.trigger`, `.keep`,
 * `.summarise`) whose built-in body a plugin can replace; the built-in summary is a model call.
 */
const compact = async (
  deps: LoopDeps,
  { ref, record, history, assembled }: Extract<Effect, { kind: 'compact' }>
): Promise<EffectResults['compact']> => {
  const taskId = record.task.id;
  const { config } = deps;
  const tokensBefore = estimateTokens(record, assembled.characters);
  const live = liveEntries(record, history);
  const over = await deps.hooks.run(
    'compaction.trigger',
    { taskId, estimatedTokens: tokensBefore, budgetTokens: compactionBudget(config) },
    (context) => context.estimatedTokens > context.budgetTokens
  );
  if (!over || live.length === 0) return { record: null, context: assembled };
  // The built-in summary's model call, counted in the ledger; none when a plugin summarised.
  let call: SummaryCall | undefined;
  const keptSections = await deps.hooks.run(
    'compaction.keep',
    { taskId, sections: [...NEVER_COMPACT] },
    (context) => context.sections
  );
  const { summary, removedThrough } = await deps.hooks.run(
    'compaction.summarise',
    { taskId, previousSummary: record.loop.summary, entries: live },
    async (context) => {
      const removed = oldestHalf(context.entries);
      const request = summaryRequest(
        taskId,
        context.previousSummary,
        removed,
        config.maxOutputTokens
      );
      const response = await deps.model.invoke(request);
      call = summaryCallOf(response, config.prices);
      return {
        summary: response.text,
        removedThrough: removed.at(-1)?.seq ?? context.entries[0]?.seq ?? 0,
      };
    }
  );
  return compactionOf({
    ref,
    record,
    history,
    tokensBefore,
    decided: { summary, removedThrough, keptSections },
    call,
    tools: deps.tools,
    config,
    now: deps.clock.now(),
  });
};

/**
 * The validating invoker: the call validated and an intrinsic run (`prepareCall`), an external
 * tool run by the runner. A non-idempotent external tool that throws is not retried (its failure
 * becomes `tool.not_retried`); an idempotent one rethrows so the state machine's retry policy can
 * run it again.
 */
export const invokeTool = async (
  call: ModelToolCall,
  options: InvokeOptions
): Promise<Invocation> => {
  const prepared = prepareCall(call, options);
  if (prepared.kind !== 'external') return prepared;
  try {
    return outputOf(
      await prepared.runner.run(prepared.name, prepared.arguments, {
        taskId: options.taskId,
        callId: call.id,
      })
    );
  } catch (error) {
    if (prepared.idempotent) throw error;
    return notRetried(prepared.name, error as Error);
  }
};

/** The validating invoker inside the `tool.invoked` hooks; an attached plan through `plan.created`. */
const invoke = async (
  deps: LoopDeps,
  { taskId, call, context }: Extract<Effect, { kind: 'invoke_tool' }>
): Promise<Invocation> => {
  let invocation: Invocation;
  try {
    invocation = await deps.hooks.run('tool.invoked', { taskId, call }, (hooked) =>
      invokeTool(hooked.call, { registry: deps.tools, runner: deps.runner, taskId, context })
    );
  } catch (error) {
    if (error instanceof HookAbortError) return aborted(error);
    throw error;
  }
  if (invocation.kind !== 'command' || invocation.command.kind !== 'attach_plan') return invocation;
  const { command } = invocation;
  try {
    const plan = await deps.hooks.run(
      'plan.created',
      { taskId, plan: command.plan },
      (c) => c.plan
    );
    return { ...invocation, command: { ...command, plan } };
  } catch (error) {
    if (!(error instanceof HookAbortError)) throw error;
    return aborted(error);
  }
};

/** Performs one effect a decision asked for. */
export const perform = async <E extends Effect>(
  deps: LoopDeps,
  effect: E
): Promise<EffectResults[E['kind']]> => {
  const performed: EffectResults[Effect['kind']] = await performAny(deps, effect);
  return performed as EffectResults[E['kind']];
};

const performAny = async (
  deps: LoopDeps,
  effect: Effect
): Promise<EffectResults[Effect['kind']]> => {
  switch (effect.kind) {
    case 'read_inbox':
      return deps.store.readInbox(effect.taskId);
    case 'read_message_seq':
      return (await deps.store.inboxSeqOf(effect.taskId, effect.messageId)) ?? null;
    case 'read_history':
      return deps.store.readHistory(effect.taskId, effect.after, effect.through);
    case 'compact':
      return compact(deps, effect);
    case 'reserve_budget': {
      const { taskId, call, holds } = effect;
      const { exhausted } = await deps.store.commit({ kind: 'reserve', taskId, call, holds });
      return { holds, exhausted: exhausted ?? null };
    }
    case 'call_model':
      return callModel(deps, effect);
    case 'decide_completion':
      return deps.hooks.run('task.complete', effect.context, builtInCompletion);
    case 'invoke_tool':
      return invoke(deps, effect);
    case 'create_child':
      return deps.agents.createChild(effect.request);
  }
};
