/**
 * What a caller outside the loop must do after an intake operation. `resume`: send task success
 * with the token (the task was parked). `cut`: the task was running a turn; stop that execution
 * and start generation `ref.generation`. `none`: nothing runs.
 */
export type Wake =
  | { action: 'none' }
  | { action: 'resume'; token: string }
  | { action: 'cut'; taskId: string; generation: number };
