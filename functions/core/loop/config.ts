import { DEFAULT_AGENT_ID } from '../a2a/identifiers.js';
import type { Budget, Lifecycle } from '../task/extension.schema.js';
import type { ModelPrices } from './usage.js';

/** A deployment's budgets for new tasks, by task type; `*` for any type not named. */
export type DefaultBudgets = Readonly<Record<string, Budget>>;

export interface LoopConfig {
  /** This harness's participant id. */
  agentId: string;
  /** A task that takes more model turns than this fails ("turn limit reached"). */
  maxTurns: number;
  /**
   * Times a delegated task's model is told, in a row, that acceptance criteria keep the task from
   * completing before the task parks for its reporter's review (`awaiting-review`).
   */
  criteriaReminders: number;
  /** Compaction budget: the smaller of this and the context window, times `compactionFraction`. */
  turnBudgetTokens: number;
  contextWindowTokens: number;
  compactionFraction: number;
  maxOutputTokens: number;
  /**
   * Turns one execution runs before it renews into a new one (continue-as-new), well below the
   * Standard workflow's 25,000-event history limit.
   */
  turnsPerGeneration: number;
  /** The model a task runs with when the server assigns none. */
  defaultModel?: string | undefined;
  /** Prices per model id, for each task's cost ledger; an unpriced model costs 0. */
  prices?: ModelPrices | undefined;
  /**
   * The budget a new task starts with, by its type (`type` in the extension), `*` for any other
   * type or none; a type with neither starts with none.
   */
  defaultBudgets?: DefaultBudgets | undefined;
  /**
   * The lifecycle of a task a client starts: `conversation` (the default: it parks after every
   * turn until a participant ends it) or `delegated` (the agent works it to its end and completes
   * it). A server setting, like the other server-controlled fields: no client chooses it.
   */
  clientTaskLifecycle?: Lifecycle | undefined;
}

export const DEFAULT_LOOP_CONFIG: LoopConfig = {
  agentId: DEFAULT_AGENT_ID,
  maxTurns: 50,
  criteriaReminders: 2,
  turnBudgetTokens: 12_000,
  contextWindowTokens: 400_000,
  compactionFraction: 0.75,
  maxOutputTokens: 2_000,
  turnsPerGeneration: 200,
};
