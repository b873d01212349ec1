import type { Task } from '@a2a-js/sdk';
import * as z from 'zod';
import { USAGE_METADATA_KEY } from '../a2a/identifiers.js';
import type { ModelUsage } from '../ports/model.js';
import type { TaskStore } from '../ports/task-store.js';
import { readExtension } from '../task/a2a-task.js';
import { namesParent } from '../task/links.js';

/** A model's prices in USD per million tokens (cached input is the provider's discounted rate). */
export const ModelPriceSchema = z.strictObject({
  input: z.number().min(0),
  cachedInput: z.number().min(0).optional(),
  output: z.number().min(0),
});
export type ModelPrice = z.infer<typeof ModelPriceSchema>;
export const ModelPricesSchema = z.record(z.string(), ModelPriceSchema);
export type ModelPrices = z.infer<typeof ModelPricesSchema>;

/** The usage and cost a task has run up, as recorded on the task (USAGE_METADATA_KEY). */
export const TaskUsageSchema = z.strictObject({
  model_calls: z.int().min(0),
  input_tokens: z.int().min(0),
  cached_input_tokens: z.int().min(0),
  output_tokens: z.int().min(0),
  cost_usd: z.number().min(0),
});
export type TaskUsage = z.infer<typeof TaskUsageSchema>;

export const EMPTY_USAGE: TaskUsage = {
  model_calls: 0,
  input_tokens: 0,
  cached_input_tokens: 0,
  output_tokens: 0,
  cost_usd: 0,
};

/** One call's cost: cached input at its own rate (or the input rate when none is set). */
export const costOf = (usage: ModelUsage, price: ModelPrice | undefined): number => {
  if (price === undefined) return 0;
  const cached = Math.min(usage.cachedInputTokens, usage.inputTokens);
  const fresh = usage.inputTokens - cached;
  return (
    (fresh * price.input +
      cached * (price.cachedInput ?? price.input) +
      usage.outputTokens * price.output) /
    1_000_000
  );
};

export const readUsage = (task: Task): TaskUsage => {
  const parsed = TaskUsageSchema.safeParse(task.metadata?.[USAGE_METADATA_KEY]);
  return parsed.success ? parsed.data : EMPTY_USAGE;
};

/** Sums two ledgers; costs are rounded to a micro-dollar so sums stay readable and stable. */
const add = (a: TaskUsage, b: TaskUsage): TaskUsage => ({
  model_calls: a.model_calls + b.model_calls,
  input_tokens: a.input_tokens + b.input_tokens,
  cached_input_tokens: a.cached_input_tokens + b.cached_input_tokens,
  output_tokens: a.output_tokens + b.output_tokens,
  cost_usd: Math.round((a.cost_usd + b.cost_usd) * 1_000_000) / 1_000_000,
});

/** The task with one more model call added to its usage ledger. */
export const withCall = (task: Task, usage: ModelUsage, cost: number): Task => {
  const after = add(readUsage(task), {
    model_calls: 1,
    input_tokens: usage.inputTokens,
    cached_input_tokens: usage.cachedInputTokens,
    output_tokens: usage.outputTokens,
    cost_usd: cost,
  });
  return { ...task, metadata: { ...task.metadata, [USAGE_METADATA_KEY]: after } };
};

export interface UsageTree {
  taskId: string;
  /** The remote agent the task is on; absent for a task on this harness. */
  agent?: string;
  /** This task's own usage (a remote child's: what its agent reports for its whole tree). */
  own: TaskUsage;
  children: UsageTree[];
  /** This task and every descendant whose usage is known. */
  total: TaskUsage;
  /** Tasks in the tree whose usage is unknown (a remote child whose agent reports none). */
  unknown: string[];
}

/** What a remote agent reports for its child: its tree's usage and what it cannot count. */
export interface ReportedUsage {
  usage: TaskUsage;
  unknown: string[];
}

/**
 * What remote agents report for a parent's remote children, by child id; a child missing or
 * null reports nothing.
 */
export type RemoteUsageOf = (
  parentId: string
) => Promise<ReadonlyMap<string, ReportedUsage | null>>;

const remoteLeaf = (
  taskId: string,
  agent: string,
  reported: ReportedUsage | null | undefined
): UsageTree =>
  reported == null
    ? { taskId, agent, own: EMPTY_USAGE, children: [], total: EMPTY_USAGE, unknown: [taskId] }
    : {
        taskId,
        agent,
        own: reported.usage,
        children: [],
        total: reported.usage,
        unknown: reported.unknown,
      };

/**
 * The cost ledger of a task (as the caller holds it: the root is not read again) and its
 * sub-task tree. Children on this harness are read from their records; a child on a remote agent
 * counts what its agent reports under our usage key (another tiny-harness reports its own tree),
 * and one that reports nothing is unknown, never zero. Read on demand, so it is never out of step
 * with the records.
 */
export const usageTree = async (
  store: TaskStore,
  task: Task,
  remoteUsageOf?: RemoteUsageOf
): Promise<UsageTree> => {
  const taskId = task.id;
  const own = readUsage(task);
  const rows = readExtension(task).sub_tasks;
  const reported =
    remoteUsageOf !== undefined && rows.some((row) => row.agent !== null)
      ? await remoteUsageOf(taskId)
      : new Map<string, ReportedUsage | null>();
  const children: UsageTree[] = [];
  for (const row of rows) {
    if (row.agent !== null) {
      children.push(remoteLeaf(row.task_id, row.agent.id, reported.get(row.task_id)));
      continue;
    }
    const child = await store.get(row.task_id);
    if (child !== undefined && namesParent(child.task, taskId)) {
      children.push(await usageTree(store, child.task, remoteUsageOf));
    }
  }
  return {
    taskId,
    own,
    children,
    total: children.reduce((sum, child) => add(sum, child.total), own),
    unknown: children.flatMap((child) => child.unknown),
  };
};
