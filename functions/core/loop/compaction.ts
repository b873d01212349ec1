import type { TaskRecord } from '../ports/task-store.js';
import {
  type AssembledContext,
  assembleContext,
  estimateTokens,
  forModel,
  NEVER_COMPACT,
} from './context.js';
import type { LoopDeps } from './deps.js';
import type { HistoryEntry } from './history.schema.js';
import { type Change, withLoop } from './records.js';
import type { TurnRef } from './route.schema.js';

/** What every compaction leaves behind, persisted per (task, generation, turn). */
export interface CompactionRecord {
  task_id: string;
  turn: number;
  removed_seqs: number[];
  /** Transcript entries up to this seq are now represented by `summary`. */
  removed_through: number;
  summary: string;
  kept_sections: string[];
  tokens_before: number;
  tokens_after: number;
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

/** The compaction applied to the loop state, its record kept for the auditor. */
export const withCompaction = (
  change: Change,
  ref: TurnRef,
  compaction: CompactionRecord
): Change => ({
  ...withLoop(change, (loop) => ({
    ...loop,
    summary: compaction.summary,
    compactedThrough: Math.max(loop.compactedThrough, compaction.removed_through),
    keptSections: compaction.kept_sections,
    lastInputTokens: null,
  })),
  audit: [...change.audit, { key: compactionKey(ref), value: compaction }],
});

/**
 * The compaction the next request needs, if it would be over budget. Each point is a hook
 * (`compaction.trigger`, `.keep`, `.summarise`) whose built-in body a plugin can replace. Writes
 * nothing: the caller commits it with `withCompaction`.
 */
export const compactionFor = async (
  deps: LoopDeps,
  ref: TurnRef,
  record: TaskRecord,
  history: readonly HistoryEntry[],
  /** The context `record` and `history` assemble to (the caller's, which it sends if no compaction). */
  assembled: AssembledContext
): Promise<CompactionRecord | undefined> => {
  const taskId = record.task.id;
  const { config } = deps;
  const before = estimateTokens(record, assembled.characters);
  const budgetTokens = Math.floor(
    config.compactionFraction * Math.min(config.contextWindowTokens, config.turnBudgetTokens)
  );
  const live = history.filter((entry) => entry.seq > record.loop.compactedThrough);
  const over = await deps.hooks.run(
    'compaction.trigger',
    { taskId, estimatedTokens: before, budgetTokens },
    (context) => context.estimatedTokens > context.budgetTokens
  );
  if (!over || live.length === 0) return undefined;

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
      const previous = context.previousSummary
        ? `Previous summary:\n${context.previousSummary}\n\n`
        : '';
      const response = await deps.model.invoke({
        instructions: SUMMARY_INSTRUCTIONS,
        input: [
          {
            type: 'message',
            role: 'user',
            text: `${previous}Entries:\n${renderForSummary(removed)}`,
          },
        ],
        tools: [],
        cacheKey: `${taskId}:compaction`,
        maxOutputTokens: config.maxOutputTokens,
      });
      return {
        summary: response.text,
        removedThrough: removed.at(-1)?.seq ?? context.entries[0]?.seq ?? 0,
      };
    }
  );

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
  const after = estimateTokens(
    compacted,
    assembleContext({ record: compacted, history, tools: deps.tools, config }).characters
  );
  return {
    task_id: taskId,
    turn: ref.turn,
    removed_seqs: live.filter((entry) => entry.seq <= removedThrough).map((entry) => entry.seq),
    removed_through: removedThrough,
    summary,
    kept_sections: keptSections,
    tokens_before: before,
    tokens_after: after,
    at: deps.clock.now(),
  };
};
