/**
 * Lambda event filtering (the subset the stack uses), so a local stream mapping hands the
 * stream handler exactly the records the cloud's event source mapping would. A pattern is an
 * object whose keys must all match; a leaf is an array of alternatives, each a literal or a
 * `{ exists }`, `{ prefix }` or `{ "anything-but" }` rule.
 */
type Pattern = { [key: string]: Pattern | readonly unknown[] };

const matchesRule = (value: unknown, rule: unknown): boolean => {
  if (rule === null || typeof rule !== 'object') return value === rule;
  const entries = Object.entries(rule as Record<string, unknown>);
  const [name, argument] = entries[0] ?? [];
  switch (name) {
    case 'exists':
      return (value !== undefined) === argument;
    case 'prefix':
      return (
        typeof value === 'string' && typeof argument === 'string' && value.startsWith(argument)
      );
    case 'anything-but':
      return Array.isArray(argument) ? !argument.includes(value) : value !== argument;
    default:
      throw new Error(`unsupported filter rule ${JSON.stringify(rule)}`);
  }
};

export const matchesPattern = (value: unknown, pattern: Pattern): boolean =>
  Object.entries(pattern).every(([key, expected]) => {
    const actual =
      value !== null && typeof value === 'object'
        ? (value as Record<string, unknown>)[key]
        : undefined;
    if (Array.isArray(expected)) return expected.some((rule) => matchesRule(actual, rule));
    return matchesPattern(actual, expected as Pattern);
  });

/** A record passes when any filter matches (filters are OR-ed, as in the service). */
export const passesFilters = (record: unknown, filters: readonly Pattern[]): boolean =>
  filters.length === 0 || filters.some((pattern) => matchesPattern(record, pattern));

export type { Pattern as FilterPattern };
