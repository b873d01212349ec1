/**
 * A list the model reads, bounded (pure): every item's line when they fit `budget` characters;
 * otherwise the items that matter most (`rank`: lower first) while they fit, shown in their own
 * order, each run of the others replaced by one line saying how many are not shown and what
 * they are (`gap`). A task with a thousand sub-tasks or a plan of hundreds of steps is then read
 * in a few thousand characters, not in tens of thousands every turn, and compaction of the
 * transcript can still bring the request under its budget.
 */
export const boundedLines = <T>(options: {
  items: readonly T[];
  line: (item: T) => string;
  rank: (item: T, index: number) => number;
  budget: number;
  gap: (hidden: readonly T[]) => string;
}): { lines: string[]; hidden: number } => {
  const { items, line, rank, budget, gap } = options;
  const lines = items.map(line);
  const total = lines.reduce((sum, text) => sum + text.length + 1, 0);
  if (total <= budget) return { lines, hidden: 0 };
  const byRank = items
    .map((item, index) => ({ index, rank: rank(item, index) }))
    .sort((a, b) => a.rank - b.rank || a.index - b.index);
  const picked: number[] = [];
  let used = 0;
  for (const { index } of byRank) {
    const length = (lines[index] ?? '').length + 1;
    if (used + length > budget) continue;
    picked.push(index);
    used += length;
  }
  // The gap lines take room too: the least important of the shown give way until all fits.
  for (;;) {
    const out = render(items, lines, new Set(picked), gap);
    if (picked.length === 0 || out.reduce((sum, text) => sum + text.length + 1, 0) <= budget) {
      return { lines: out, hidden: items.length - picked.length };
    }
    picked.pop();
  }
};

const render = <T>(
  items: readonly T[],
  lines: readonly string[],
  shown: ReadonlySet<number>,
  gap: (hidden: readonly T[]) => string
): string[] => {
  const out: string[] = [];
  let run: T[] = [];
  items.forEach((item, index) => {
    if (shown.has(index)) {
      if (run.length > 0) out.push(gap(run));
      run = [];
      out.push(lines[index] ?? '');
    } else run.push(item);
  });
  if (run.length > 0) out.push(gap(run));
  return out;
};

/** "3 completed, 2 failed": how many of each kind, most first (ties in first-seen order). */
export const countsOf = <T>(items: readonly T[], kind: (item: T) => string): string => {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(kind(item), (counts.get(kind(item)) ?? 0) + 1);
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1])
    .map(([name, count]) => `${count} ${name}`)
    .join(', ');
};
