import type { CanceledExecution } from './control.js';

/**
 * What a caller outside the loop must do after an intake operation. `resume`: send task success
 * with the token (the task was parked). `cut`: the task was running a turn; stop that execution
 * and start generation `generation` (the one before it is superseded). `stop`: stop generation
 * `generation`. `ended`: several tasks ended at once. `none`: nothing runs.
 */
export type Wake =
  | { action: 'none' }
  | { action: 'resume'; token: string }
  | { action: 'cut'; taskId: string; generation: number }
  | { action: 'stop'; taskId: string; generation: number }
  /** Tasks that ended (a cancel and its cascade): resume each parked one, stop each running one. */
  | { action: 'ended'; executions: CanceledExecution[] };
