/**
 * The domain's typed errors. Every failure the core reports is a `HarnessError` with a stable
 * `code` (what clients and the model see) and a literal `name` (what Step Functions `Retry` and
 * `Catch` match, and what survives minification). Edges map codes through exhaustive tables.
 */
import type { TaskRecord } from './ports/task-store.js';

export const ERROR_CODES = [
  'plan.cycle',
  'plan.missing',
  'plan.unknown_step',
  'tool.invalid_arguments',
  'tool.not_found',
  'tool.not_retried',
  'tool.refused',
  'tool.rejected',
  'approval.not_allowed',
  'approval.not_pending',
  'channel.not_a_member',
  'participant.role_required',
  'participant.refused',
  'envelope.invalid',
  'envelope.refused',
  'envelope.server_controlled',
  'envelope.admin_required',
  'criterion.unknown',
  'criterion.invalid_evidence',
  'criterion.not_met',
  'criterion.reviewer_required',
  'message.invalid',
  'task.not_found',
  'task.closed',
  'task.invalid',
  'task.turn_limit',
  'store.conflict',
  'store.exists',
  'model.script_exhausted',
  'model.failed',
  'model.retryable',
  'hook.abort',
  'secret.unreadable',
  'remote.refused',
  'remote.failed',
  'tool.unreachable',
  'fork.point_unknown',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export abstract class HarnessError extends Error {
  abstract readonly code: ErrorCode;
  /** Whether a retry of the same operation may succeed (Step Functions `Retry` matches these). */
  readonly retryable: boolean = false;
}

/** A plan that is not a DAG: duplicate ids, a dangling dependency, or a cycle (with its path). */
export class PlanCycleError extends HarnessError {
  override readonly name = 'PlanCycleError';
  readonly code = 'plan.cycle';
  /** The cycle as step ids, first id repeated at the end (`a -> b -> a`); empty for other faults. */
  readonly path: readonly string[];
  constructor(message: string, path: readonly string[] = [], options?: ErrorOptions) {
    super(message, options);
    this.path = path;
  }
}

export class PlanMissingError extends HarnessError {
  override readonly name = 'PlanMissingError';
  readonly code = 'plan.missing';
  constructor(options?: ErrorOptions) {
    super('no plan; call create_plan first', options);
  }
}

export class UnknownStepError extends HarnessError {
  override readonly name = 'UnknownStepError';
  readonly code = 'plan.unknown_step';
  readonly step: string;
  constructor(step: string, options?: ErrorOptions) {
    super(`no step with id or name ${JSON.stringify(step)}`, options);
    this.step = step;
  }
}

/** A task envelope or task extension that does not parse; nothing in it is applied. */
export class InvalidEnvelopeError extends HarnessError {
  override readonly name = 'InvalidEnvelopeError';
  readonly code = 'envelope.invalid';
}

/** A task envelope naming keys no participant may change (`plan`, `sub_tasks`, ...). */
export class EnvelopeRefusedError extends HarnessError {
  override readonly name = 'EnvelopeRefusedError';
  readonly code = 'envelope.refused';
  readonly keys: readonly string[];
  constructor(keys: readonly string[], options?: ErrorOptions & { why?: string }) {
    const why = options?.why === undefined ? '' : ` (${options.why})`;
    super(`task envelope cannot change ${keys.join(', ')}${why}`, options);
    this.keys = keys;
  }
}

/** An envelope carrying `lifecycle`, `model` or `reasoning_effort`: refused whole, from anyone. */
export class ServerControlledFieldError extends HarnessError {
  override readonly name = 'ServerControlledFieldError';
  readonly code = 'envelope.server_controlled';
  readonly keys: readonly string[];
  constructor(keys: readonly string[], options?: ErrorOptions) {
    super(`server-controlled fields cannot be set by a participant: ${keys.join(', ')}`, options);
    this.keys = keys;
  }
}

export class AdminRequiredError extends HarnessError {
  override readonly name = 'AdminRequiredError';
  readonly code = 'envelope.admin_required';
}

/** A message whose text is a harness command that does not parse (`/sub-task` with nothing after). */
export class InvalidMessageError extends HarnessError {
  override readonly name = 'InvalidMessageError';
  readonly code = 'message.invalid';
}

/** A criterion named by an id or position the task does not have. */
export class UnknownCriterionError extends HarnessError {
  override readonly name = 'UnknownCriterionError';
  readonly code = 'criterion.unknown';
}

/** A rejection of a criterion that is not met: there is nothing to reject. */
export class CriterionNotMetError extends HarnessError {
  override readonly name = 'CriterionNotMetError';
  readonly code = 'criterion.not_met';
}

/** A review (rejecting a criterion) by a participant who is neither a reporter nor an admin. */
export class ReviewerRequiredError extends HarnessError {
  override readonly name = 'ReviewerRequiredError';
  readonly code = 'criterion.reviewer_required';
}

/** An approval or rejection from a participant whose role may not decide the call. */
export class ApprovalNotAllowedError extends HarnessError {
  override readonly name = 'ApprovalNotAllowedError';
  readonly code = 'approval.not_allowed';
}

/** An approval or rejection naming no call that waits for one (none waits, or not that one). */
export class ApprovalNotPendingError extends HarnessError {
  override readonly name = 'ApprovalNotPendingError';
  readonly code = 'approval.not_pending';
}

/** A participant whose role does not allow what they asked for (docs/identity.md's table). */
export class RoleRequiredError extends HarnessError {
  override readonly name = 'RoleRequiredError';
  readonly code = 'participant.role_required';
}

/**
 * A participants list the server will not take from a client: someone other than the creator
 * named in a role beyond watcher, an assignee other than this agent, an id given twice, the
 * agent's own id in a person's place, or more than the cap.
 */
export class ParticipantsRefusedError extends HarnessError {
  override readonly name = 'ParticipantsRefusedError';
  readonly code = 'participant.refused';
}

export class NotAParticipantError extends HarnessError {
  override readonly name = 'NotAParticipantError';
  readonly code = 'channel.not_a_member';
}

export class TaskNotFoundError extends HarnessError {
  override readonly name = 'TaskNotFoundError';
  readonly code = 'task.not_found';
  readonly taskId: string;
  constructor(taskId: string, options?: ErrorOptions) {
    super(`task ${taskId} not found`, options);
    this.taskId = taskId;
  }
}

/** A message or control for a task already in a terminal state. */
export class TaskClosedError extends HarnessError {
  override readonly name = 'TaskClosedError';
  readonly code = 'task.closed';
  readonly taskId: string;
  constructor(taskId: string, options?: ErrorOptions) {
    super(`task ${taskId} is closed`, options);
    this.taskId = taskId;
  }
}

/** A stored record that no longer parses: persisted data is untrusted input too. */
export class InvalidTaskRecordError extends HarnessError {
  override readonly name = 'InvalidTaskRecordError';
  readonly code = 'task.invalid';
}

export class TurnLimitError extends HarnessError {
  override readonly name = 'TurnLimitError';
  readonly code = 'task.turn_limit';
  constructor(maxTurns: number, options?: ErrorOptions) {
    super(`turn limit reached (${maxTurns})`, options);
  }
}

/** A write whose expected version no longer matches: someone else wrote first. */
/** What a store can tell of a commit it refused, so the decision is taken again without a read. */
export interface ConflictDetail {
  /** The task as stored when the commit was refused. */
  current?: TaskRecord | undefined;
  /** Every id the commit took in was still free: the refusal was the task's alone. */
  idsFree?: boolean | undefined;
}

export class ConcurrencyConflictError extends HarnessError {
  override readonly name = 'ConcurrencyConflictError';
  readonly code = 'store.conflict';
  override readonly retryable = true;
  readonly current: TaskRecord | undefined;
  readonly idsFree: boolean;
  constructor(message: string, options?: ErrorOptions & ConflictDetail) {
    super(message, options);
    this.current = options?.current;
    this.idsFree = options?.idsFree === true;
  }
}

export class AlreadyExistsError extends HarnessError {
  override readonly name = 'AlreadyExistsError';
  readonly code = 'store.exists';
}

/** The scripted model was asked for more replies than its script holds. */
export class ScriptExhaustedError extends HarnessError {
  override readonly name = 'ScriptExhaustedError';
  readonly code = 'model.script_exhausted';
}

export class ModelFailedError extends HarnessError {
  override readonly name = 'ModelFailedError';
  readonly code = 'model.failed';
}

export class ModelRetryableError extends HarnessError {
  override readonly name = 'ModelRetryableError';
  readonly code = 'model.retryable';
  override readonly retryable = true;
}

/** A hook executor aborted the operation; the operation fails or is refused with this reason. */
export class HookAbortError extends HarnessError {
  override readonly name = 'HookAbortError';
  readonly code = 'hook.abort';
}

/**
 * A sealed secret that does not open: changed, sealed under another key or scheme, or opened with
 * another context than it was sealed with (a token copied onto another config). Retrying never
 * helps; the secret must be given again.
 */
export class SecretUnreadableError extends HarnessError {
  override readonly name = 'SecretUnreadableError';
  readonly code = 'secret.unreadable';
}

/**
 * A registered remote agent the harness cannot call: its card offers no A2A 1.0 interface over
 * JSON-RPC or HTTP+JSON. A configuration problem, reported when the agent is registered.
 */
export class RemoteAgentRefusedError extends HarnessError {
  override readonly name = 'RemoteAgentRefusedError';
  readonly code = 'remote.refused';
  readonly agent: string;
  constructor(agent: string, message: string, options?: ErrorOptions) {
    super(`remote agent ${agent} is refused: ${message}`, options);
    this.agent = agent;
  }
}

/**
 * How a call to a remote agent went wrong: `unreachable` (no answer: refused connection, DNS,
 * timeout, a 5xx), `answered` (an A2A error; `a2aError` names it), `garbage` (an answer that is
 * not what A2A says it must be).
 */
export type RemoteFailureKind = 'unreachable' | 'answered' | 'garbage';

export class RemoteCallError extends HarnessError {
  override readonly name = 'RemoteCallError';
  readonly code = 'remote.failed';
  readonly kind: RemoteFailureKind;
  /** The A2A error's name (`TaskNotFoundError`, ...) when the agent answered with one. */
  readonly a2aError: string | undefined;
  constructor(
    kind: RemoteFailureKind,
    message: string,
    options?: ErrorOptions & { a2aError?: string }
  ) {
    super(message, options);
    this.kind = kind;
    this.a2aError = options?.a2aError;
  }
}

/**
 * An external tool's server could not be reached or answered nothing usable (an MCP server down,
 * its connection lost): the step is retried by the state machine. The invoker records a
 * `tool.not_retried` result instead for a tool that may run only once.
 */
export class ToolUnreachableError extends HarnessError {
  override readonly name = 'ToolUnreachableError';
  readonly code = 'tool.unreachable';
  override readonly retryable = true;
}

/** Error names the state machine retries (transient) — `cdk/` reads this list. */
export const RETRYABLE_ERROR_NAMES = [
  'ConcurrencyConflictError',
  'ModelRetryableError',
  'ToolUnreachableError',
] as const;

export const isHarnessError = (error: unknown): error is HarnessError =>
  error instanceof HarnessError;

/**
 * A point in a task's history that is not there: a message id the task's history does not hold,
 * or a turn past the last one it took. Nothing is created.
 */
export class HistoryPointError extends HarnessError {
  override readonly name = 'HistoryPointError';
  readonly code = 'fork.point_unknown';
}
