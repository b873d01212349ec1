import type { SubTaskRow } from '../task/extension.schema.js';

/** One canceled task's execution: resume it with the token if parked, else stop it. */
export interface CanceledExecution {
  taskId: string;
  token: string | null;
  generation: number;
}

/** An unresolved child on a remote agent, under the parent whose row names it. */
export interface RemoteChildRef {
  parentId: string;
  row: SubTaskRow;
}

/**
 * What must happen to executions once an operation's commit is in (a `Waker` does it).
 * `resume`: send task success with the token (the task was parked). `cut`: the task was running a turn; stop that execution
 * and start generation `generation` (the one before it is superseded). `ensure-running`: work
 * was added to a task that is not parked: its generation's execution takes it at its next
 * drain, if that execution is still alive (after a crash, revive the task). `ended`: tasks
 * ended (a cancel and its cascade), and their remote children must be canceled. `none`: nothing
 * runs.
 */
export type Wake =
  | { action: 'none' }
  /** The task's execution (`generation`) is parked on `token`. */
  | { action: 'resume'; token: string; taskId: string; generation: number }
  | { action: 'cut'; taskId: string; generation: number }
  | { action: 'ensure-running'; taskId: string; generation: number }
  /**
   * Tasks that ended (a cancel and its cascade): resume each parked one, stop each running one,
   * and have each unresolved remote child canceled on its agent.
   */
  | { action: 'ended'; executions: CanceledExecution[]; remoteChildren?: RemoteChildRef[] };

/**
 * Does what a wake says to the executions, once the commit that decided it is in: the unit of
 * work calls it after an operation that wakes (a message, a child's news, a cancel, a revival),
 * so no caller has to remember to. A wake that finds the execution gone revives the task, whose
 * own wake (a cut) is followed in turn.
 */
export interface Waker {
  follow(wake: Wake): Promise<void>;
}
