/**
 * Rewrites a definition's timeouts for the interpreter, which differs from AWS in three ways
 * (all measured): a Task without `TimeoutSeconds` times out after 60 s (AWS: no such default),
 * values past 24.8 days overflow setTimeout and fire at once, and `HeartbeatSeconds` is ignored.
 * Callback states get the longest safe interpreter timeout; their real `TimeoutSeconds`/
 * `HeartbeatSeconds` (and `...Path` forms) are enforced by the token registry from the
 * original definition. The caller keeps the original for describing the states.
 *
 * It also fixes one more difference (measured): the interpreter takes `ResultPath: "$"` as a key
 * named "$" and merges the result under it, where AWS replaces the whole input with the result.
 * `"$"` is the default, so dropping it gives AWS's meaning.
 */
import { type AslMachine, visitStates } from './asl-walk.js';
import { MAX_TIMER_SECONDS } from './timers.js';

const clampSeconds = (value: unknown) =>
  typeof value === 'number' ? Math.min(value, MAX_TIMER_SECONDS) : value;

export function prepareDefinition(original: AslMachine): AslMachine {
  const machine = structuredClone(original);
  if (machine.TimeoutSeconds !== undefined) {
    machine.TimeoutSeconds = clampSeconds(machine.TimeoutSeconds);
  }
  for (const { state } of visitStates(machine)) {
    if (state.ResultPath === '$') delete state.ResultPath;
    if (state.Type !== 'Task') continue;
    const callback =
      typeof state.Resource === 'string' && state.Resource.endsWith('.waitForTaskToken');
    if (callback) {
      delete state.TimeoutSecondsPath;
      delete state.HeartbeatSeconds;
      delete state.HeartbeatSecondsPath;
      state.TimeoutSeconds = MAX_TIMER_SECONDS;
    } else if (state.TimeoutSeconds !== undefined) {
      state.TimeoutSeconds = clampSeconds(state.TimeoutSeconds);
    } else if (state.TimeoutSecondsPath === undefined) {
      state.TimeoutSeconds = MAX_TIMER_SECONDS;
    }
  }
  return machine;
}
