import type { ModelRequest, ModelResponse } from '../ports/model.js';
import type { TaskRecord } from '../ports/task-store.js';
import type { ToolRegistry } from '../tools/registry.js';
import type { LoopConfig } from './config.js';
import { type AssembledContext, assembleContext, estimateTokens, forModel } from './context.js';
import type { HistoryEntry } from './history.schema.js';
import { priceOf } from './prices.js';
import { type Change, withLoop, withRecord } from './records.js';
import type { TurnRef } from './route.schema.js';
import { costOf, withCall } from './usage.js';

/**
 * The model call that wrote a compaction's summary, as the ledger counts it: a model call of the
 * task like any other, so it is spent from the task's budget and shown in its usage.
 */
export interface SummaryCall {
  model: string;
  input_tokens: number;
  cached_input_tokens: number;
  output_tokens: number;
  cost_usd: number;
}

/** What every compaction leaves behind, persisted per (task, generation, turn). */
export interface CompactionRecord {
  task_id: string;
  turn: number;
  removed_seqs: number[];
  /** Transcript entries up to this seq are now represented by `summary`. */
  removed_through: number;
  /**
   * The transcript's last seq when it was compacted: a fork at a point from here on is shown the
   * summary too. Absent from records written before it was kept.
   */
  history_seq?: number;
  summary: string;
  kept_sections: string[];
  tokens_before: number;
  tokens_after: number;
  /** The summary's model call; absent when a `compaction.summarise` plugin wrote it without one. */
  call?: SummaryCall;
  at: string;
}

const SUMMARY_INSTRUCTIONS = [
  'You compress an agent transcript. Write a faithful summary of the entries given:',
  'decisions, facts learned, tool results that matter, open questions, and who asked what.',
  'Fold in the previous summary when there is one. Plain prose, no preamble.',
].join(' ');

/** The oldest half of the live transcript (at least one entry), never splitting a call from its result. */
export const oldestHalf = (live: readonly HistoryEntry[]): HistoryEntry[] => {
  let count = Math.max(1, Math.floor(live.length / 2));
  while (count < live.length && live[count]?.kind === 'tool_result') count++;
  return live.slice(0, count);
};

const renderEntry = (entry: HistoryEntry): string => {
  switch (entry.kind) {
    case 'participant_message':
      return `${entry.participantId}: ${forModel(entry.text)}`;
    case 'assistant_message':
      return `assistant: ${forModel(entry.text)}`;
    case 'tool_call':
      return `assistant called ${entry.name}(${entry.arguments})`;
    case 'tool_result':
      return `${entry.name} returned${entry.isError ? ' an error' : ''}: ${forModel(entry.output)}`;
    case 'note':
      return `news from ${entry.fromTaskId}: ${forModel(entry.text)}`;
    case 'harness_note':
      return `harness: ${forModel(entry.text)}`;
  }
};

const renderForSummary = (entries: readonly HistoryEntry[]): string =>
  entries.map(renderEntry).join('\n');

export const compactionKey = (ref: TurnRef) => `compaction:${ref.generation}:${ref.turn}`;

/** The summary's call as the ledger counts it, priced as the model's calls are. */
export const summaryCallOf = (
  response: Pick<ModelResponse, 'model' | 'usage'>,
  prices: LoopConfig['prices']
): SummaryCall => ({
  model: response.model,
  input_tokens: response.usage.inputTokens,
  cached_input_tokens: response.usage.cachedInputTokens,
  output_tokens: response.usage.outputTokens,
  cost_usd: costOf(response.usage, priceOf(prices, response.model)),
});

/** The ledger with the summary's call added (pure): the task as it was when no model wrote it. */
const withSummaryCall = (change: Change, call: SummaryCall | undefined): Change => {
  if (call === undefined) return change;
  const usage = {
    inputTokens: call.input_tokens,
    cachedInputTokens: call.cached_input_tokens,
    outputTokens: call.output_tokens,
  };
  return withRecord(change, (record) => ({
    ...record,
    task: withCall(record.task, usage, call.cost_usd),
  }));
};

/** The compaction applied to the loop state and the ledger, its record kept for the auditor. */
export const withCompaction = (
  change: Change,
  ref: TurnRef,
  compaction: CompactionRecord
): Change => {
  const compacted = withLoop(change, (loop) => ({
    ...loop,
    summary: compaction.summary,
    compactedThrough: Math.max(loop.compactedThrough, compaction.removed_through),
    keptSections: compaction.kept_sections,
    lastInputTokens: null,
  }));
  return {
    ...withSummaryCall(compacted, compaction.call),
    audit: [...change.audit, { key: compactionKey(ref), value: compaction }],
  };
};

/** The token budget past which a request is compacted. */
export const compactionBudget = (
  config: Pick<LoopConfig, 'compactionFraction' | 'contextWindowTokens' | 'turnBudgetTokens'>
): number =>
  Math.floor(
    config.compactionFraction * Math.min(config.contextWindowTokens, config.turnBudgetTokens)
  );

/**
 * Whether a request of `tokens` (estimated) is compacted before it is sent, by the built-in rule
 * (a `compaction.trigger` plugin may decide otherwise).
 */
export const overCompactionBudget = (
  tokens: number,
  config: Pick<LoopConfig, 'compactionFraction' | 'contextWindowTokens' | 'turnBudgetTokens'>
): boolean => tokens > compactionBudget(config);

/** The transcript entries not yet represented by the summary. */
export const liveEntries = (record: TaskRecord, history: readonly HistoryEntry[]): HistoryEntry[] =>
  history.filter((entry) => entry.seq > record.loop.compactedThrough);

/** The model request that summarises `removed` (folding in the previous summary). */
export const summaryRequest = (
  taskId: string,
  previousSummary: string | null,
  removed: readonly HistoryEntry[],
  maxOutputTokens: number
): ModelRequest => {
  const previous = previousSummary ? `Previous summary:\n${previousSummary}\n\n` : '';
  return {
    instructions: SUMMARY_INSTRUCTIONS,
    input: [
      { type: 'message', role: 'user', text: `${previous}Entries:\n${renderForSummary(removed)}` },
    ],
    tools: [],
    cacheKey: `${taskId}:compaction`,
    maxOutputTokens,
  };
};

/**
 * What a compaction leaves, from what its hooks decided: its record (the summary, the entries it
 * replaces and the sections kept, with the estimate before and after for the auditor), and the
 * request assembled on the compacted transcript, the one the estimate after is of.
 */
export const compactionOf = (options: {
  ref: TurnRef;
  record: TaskRecord;
  history: readonly HistoryEntry[];
  tokensBefore: number;
  decided: { summary: string; removedThrough: number; keptSections: string[] };
  call: SummaryCall | undefined;
  tools: ToolRegistry;
  config: LoopConfig;
  now: string;
}): { record: CompactionRecord; context: AssembledContext } => {
  const { ref, record, history, tokensBefore, decided, tools, config } = options;
  const { summary, removedThrough, keptSections } = decided;
  const compacted: TaskRecord = {
    ...record,
    loop: {
      ...record.loop,
      summary,
      compactedThrough: removedThrough,
      keptSections,
      lastInputTokens: null,
    },
  };
  const context = assembleContext({ record: compacted, history, tools, config });
  const after = estimateTokens(compacted, context.characters);
  const compaction: CompactionRecord = {
    task_id: record.task.id,
    turn: ref.turn,
    removed_seqs: liveEntries(record, history)
      .filter((entry) => entry.seq <= removedThrough)
      .map((entry) => entry.seq),
    removed_through: removedThrough,
    history_seq: record.loop.historySeq,
    summary,
    kept_sections: keptSections,
    tokens_before: tokensBefore,
    tokens_after: after,
    ...(options.call === undefined ? {} : { call: options.call }),
    at: options.now,
  };
  return { record: compaction, context };
};
