import type { Message, TaskState } from '@a2a-js/sdk';
import type { BudgetHolder } from '../loop/loop-state.schema.js';
import type {
  Budget,
  Lifecycle,
  Participant,
  ReasoningEffort,
  SubState,
} from '../task/extension.schema.js';

export interface RegisteredAgent {
  id: string;
  description: string;
}

/**
 * Settings a child on this harness inherits through its brief. They are server-controlled, so
 * they travel beside the message on the harness's own trusted path, never in a task envelope
 * (which would be refused whole). A remote agent never receives them.
 */
export interface InheritedSettings {
  lifecycle: Lifecycle;
  model?: string | undefined;
  reasoning_effort?: ReasoningEffort | undefined;
  /** The child's own budget (spawn_subtask's sub-budget, within what its parent has left). */
  budget?: Budget | undefined;
  /** The budgets the child's calls draw on: its parent's and those its parent draws on. */
  budgetHolders?: readonly BudgetHolder[] | undefined;
}

export interface ChildRequest {
  /** A registered remote agent id, or null for this harness. */
  agent: string | null;
  /**
   * The brief: the first message of the child task. Its task envelope describes the work (name,
   * goal, criteria) and names no relation: those are the harness's own (below).
   */
  message: Message;
  inherited: InheritedSettings;
  /** The task the child is created for. */
  parentTaskId: string;
  /** Who takes part in a child on this harness; a remote agent never receives them. */
  participants: readonly Participant[];
}

export interface ChildCreated {
  /** The child's own task id, as its agent assigned it. */
  taskId: string;
  state: TaskState;
  subState: SubState | undefined;
}

/**
 * Where children live: remote A2A agents by registered id, and this harness itself (agent null).
 * Every child, self included, is an A2A task created by SendMessage carrying its brief.
 */
export interface AgentDirectory {
  /** The remote agents a task may delegate to. */
  agents(): readonly RegisteredAgent[];
  /**
   * Creates the child. MUST be idempotent on `message.messageId`: a retried request returns the
   * task the first one created.
   */
  createChild(request: ChildRequest): Promise<ChildCreated>;
}
