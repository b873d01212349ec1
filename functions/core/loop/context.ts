import { boundedLines, countsOf } from '../bounded-lines.js';
import { renderPlanForModel } from '../plan/plan.js';
import type { ModelInputItem, ModelRequest } from '../ports/model.js';
import type { TaskRecord } from '../ports/task-store.js';
import {
  isTerminalState,
  lifecycleOf,
  readExtension,
  stateFromName,
  stateName,
  stateOf,
} from '../task/a2a-task.js';
import type { SubTaskRow, TaskExtension } from '../task/extension.schema.js';
import type { ToolRegistry } from '../tools/registry.js';
import type { LoopConfig } from './config.js';
import { frameUntrusted } from './framing.js';
import type { HistoryEntry } from './history.schema.js';
import { DEFAULT_SYSTEM_PROMPT } from './system-prompt.js';

/**
 * Context sections in their declared order, grouped by stability. The static ones form the
 * provider's `instructions` (with the tool definitions, the cached prefix) and must be
 * byte-identical from turn to turn; the rest open the first user message as tagged blocks.
 */
export const STATIC_SECTIONS = ['system_prompt', 'participants'] as const;
export const PER_TASK_SECTIONS = ['task', 'plan'] as const;
export const PER_TURN_SECTIONS = ['state_summary'] as const;
/** Sections compaction never removes (the `compaction.keep` default). */
export const NEVER_COMPACT = ['system_prompt', 'participants', 'task', 'plan'] as const;

const block = (name: string, body: string): string => `<${name}>\n${body}\n</${name}>`;

const renderParticipants = (extension: TaskExtension): string =>
  extension.participants.length === 0
    ? '(no participants)'
    : extension.participants
        .map((p) => `- ${p.id} (${p.kind}, ${p.role})${p.display_name ? ` ${p.display_name}` : ''}`)
        .join('\n');

const renderTask = (record: TaskRecord, extension: TaskExtension): string => {
  const lines = [
    `name: ${extension.name}`,
    `state: ${stateName(stateOf(record.task))}`,
    `lifecycle: ${lifecycleOf(extension)}`,
    `goal: ${extension.goal}`,
  ];
  if (extension.description) lines.push(`description: ${extension.description}`);
  if (extension.acceptance_criteria.length > 0) lines.push(...renderCriteria(extension));
  if (extension.sub_tasks.length > 0) lines.push(...renderRows(extension.sub_tasks));
  return lines.join('\n');
};

/**
 * The most characters the sub-task rows take in the model's context (about 2,000 tokens): past
 * it, the open ones and the latest ended are shown, the rest counted (`boundedLines`).
 */
export const ROWS_VIEW_CHARS = 8_000;

const rowLine = (row: SubTaskRow) => {
  const where = row.agent === null ? '' : `${row.agent.id}/`;
  const criteria =
    row.criteria === null || row.criteria.total === 0
      ? ''
      : `, criteria ${row.criteria.met}/${row.criteria.total} met`;
  return `- ${where}${row.task_id}: ${row.state}${row.sub_state ? ` (${row.sub_state})` : ''}${criteria}`;
};

const renderRows = (rows: readonly SubTaskRow[]): string[] => {
  const group = (row: SubTaskRow) =>
    !isTerminalState(stateFromName(row.state)) ? 0 : row.state === 'TASK_STATE_COMPLETED' ? 2 : 1;
  const { lines, hidden } = boundedLines({
    items: rows,
    line: rowLine,
    // Open rows in order; ended ones, the latest first.
    rank: (row, index) =>
      group(row) * rows.length + (group(row) === 0 ? index : rows.length - index),
    budget: ROWS_VIEW_CHARS,
    gap: (run) => `- … ${run.length} sub-tasks not shown: ${countsOf(run, (row) => row.state)}`,
  });
  const heading =
    hidden === 0
      ? 'sub-tasks:'
      : `sub-tasks (${rows.length}: ${countsOf(rows, (row) => row.state)}; the open ones first, then the latest ended):`;
  return [heading, ...lines];
};

/**
 * The criteria as the model reads them: each with its id (what meet_criterion takes), met with
 * what evidence and by whom, or unmet with the reviewer's reason when one rejected it. The heading
 * says what they weigh: a delegated task completes only with all met; a conversation's are advisory.
 */
const renderCriteria = (extension: TaskExtension): string[] => {
  const criteria = extension.acceptance_criteria;
  const met = criteria.filter((criterion) => criterion.met).length;
  const weight =
    lifecycleOf(extension) === 'delegated'
      ? 'the task completes only when all are met; meet each with meet_criterion and its evidence'
      : 'advisory: meet each with meet_criterion and its evidence';
  const lines = [`acceptance criteria (${met} of ${criteria.length} met; ${weight}):`];
  for (const criterion of criteria) {
    let line = `- [${criterion.met ? 'x' : ' '}] ${criterion.id}: ${criterion.text}`;
    if (criterion.met && criterion.evidence !== null) {
      line += ` — met by ${criterion.met_by ?? 'unknown'}: ${criterion.evidence.text}`;
    } else if (criterion.rejection !== null) {
      line += ` — rejected by ${criterion.rejection.by}: ${criterion.rejection.reason}`;
    }
    lines.push(line);
  }
  return lines;
};

export const renderInstructions = (extension: TaskExtension): string =>
  [
    block('system_prompt', DEFAULT_SYSTEM_PROMPT),
    block('participants', renderParticipants(extension)),
  ].join('\n');

/**
 * The most of one transcript entry the model reads (characters, about 25,000 tokens). A longer
 * message or result is cut with a note saying so; the transcript keeps it whole (GetTask shows
 * it), and compaction summarises what the model did read.
 */
export const ENTRY_LIMIT = 100_000;

export const forModel = (text: string): string =>
  text.length <= ENTRY_LIMIT
    ? text
    : `${text.slice(0, ENTRY_LIMIT)}\n[cut: the model reads the first ${ENTRY_LIMIT} of ${text.length} characters of this entry]`;

const entryToInput = (entry: HistoryEntry): ModelInputItem => {
  switch (entry.kind) {
    case 'participant_message': {
      const text = `[${entry.participantId}] ${forModel(entry.text)}`;
      return {
        type: 'message',
        role: 'user',
        text: entry.source === 'agent' ? frameUntrusted('agent', text) : text,
        ...(entry.messageId === undefined ? {} : { messageId: entry.messageId }),
      };
    }
    case 'assistant_message':
      return { type: 'message', role: 'assistant', text: forModel(entry.text) };
    case 'tool_call':
      return {
        type: 'tool_call',
        callId: entry.callId,
        name: entry.name,
        arguments: entry.arguments,
      };
    case 'tool_result':
      return {
        type: 'tool_result',
        callId: entry.callId,
        output: frameUntrusted('tool', forModel(entry.output)),
      };
    case 'note':
      return { type: 'message', role: 'user', text: frameUntrusted('agent', forModel(entry.text)) };
    case 'harness_note':
      return { type: 'message', role: 'user', text: `[harness] ${forModel(entry.text)}` };
  }
};

/** The transcript as model input items, framing what is untrusted. */
export const historyToInput = (entries: readonly HistoryEntry[]): ModelInputItem[] =>
  entries.map(entryToInput);

export interface AssembledContext {
  request: ModelRequest;
  /** Characters of the whole request, for the token estimate. */
  characters: number;
}

/** Builds the model request for the next turn from the record and the live transcript. */
export const assembleContext = (options: {
  record: TaskRecord;
  history: readonly HistoryEntry[];
  tools: ToolRegistry;
  config: LoopConfig;
}): AssembledContext => {
  const { record, history, tools, config } = options;
  const extension = readExtension(record.task);
  const instructions = renderInstructions(extension);
  const kept = record.loop.keptSections;
  const opening = [
    block('task', renderTask(record, extension)),
    block('plan', renderPlanForModel(extension.plan)),
  ].filter((_, index) => kept === null || kept.includes(PER_TASK_SECTIONS[index] ?? ''));
  if (record.loop.summary !== null) opening.push(block('state_summary', record.loop.summary));
  const input: ModelInputItem[] = [
    { type: 'message', role: 'user', text: opening.join('\n') },
    ...historyToInput(history.filter((entry) => entry.seq > record.loop.compactedThrough)),
  ];
  const definitions = tools.definitions();
  const request: ModelRequest = {
    instructions,
    input,
    tools: definitions,
    cacheKey: record.task.id,
    maxOutputTokens: config.maxOutputTokens,
    model: extension.model ?? config.defaultModel,
    reasoningEffort: extension.reasoning_effort,
  };
  const characters = JSON.stringify(request).length;
  return { request, characters };
};

/**
 * Token estimate, no tokenizer: the input tokens the provider measured last turn plus a quarter
 * of the characters added since; on the first turn, characters / 4.
 */
export const estimateTokens = (record: TaskRecord, characters: number): number =>
  record.loop.lastInputTokens === null
    ? Math.ceil(characters / 4)
    : record.loop.lastInputTokens +
      Math.ceil(Math.max(0, characters - record.loop.lastRequestChars) / 4);
