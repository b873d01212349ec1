/** Order statistics the benchmark reports. Empty input gives 0: a figure, never a throw. */

export const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return 0;
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? 0)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
};

/** The nearest-rank percentile (p in 0..100): a value that was observed, never interpolated. */
export const percentile = (values: readonly number[], p: number): number => {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(sorted.length, rank) - 1] ?? 0;
};

/**
 * Each turn's duration from the times its model calls started: turn i lasted from call i to call
 * i + 1 (its tool calls, the commit and the next turn's preparation). The last call has no
 * successor, so K calls give K - 1 durations.
 */
export const turnDurations = (callTimes: readonly number[]): number[] =>
  callTimes.slice(1).map((time, index) => time - (callTimes[index] ?? time));

/**
 * The median duration of the `window` turns around turn `turn` (1-based), clamped to the turns
 * there are: the per-turn time "at turn n" without one slow turn deciding it.
 */
export const medianAround = (
  durations: readonly number[],
  turn: number,
  window: number
): number => {
  const half = Math.floor(window / 2);
  const last = durations.length;
  let from = Math.max(1, turn - half + 1);
  let to = from + window - 1;
  if (to > last) {
    to = last;
    from = Math.max(1, to - window + 1);
  }
  return median(durations.slice(from - 1, to));
};

export const ratio = (numerator: number, denominator: number): number =>
  denominator > 0 ? numerator / denominator : 0;
