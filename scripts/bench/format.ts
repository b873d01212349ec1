/** How the benchmark writes its figures: aligned text for a terminal, or Markdown for the docs. */

export const fixed = (value: number, digits = 1): string => value.toFixed(digits);
/** A figure that may not have been read: a dash then. */
export const orUnknown = (value: number | null, digits = 1): string =>
  value === null ? '—' : fixed(value, digits);
export const dollars = (value: number): string => `$${value.toFixed(4)}`;
export const mib = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(0)} MiB`;
/** Decimal megabytes, as the Lambda quotas and the targets count them. */
export const mb = (bytes: number): string => `${(bytes / 1e6).toFixed(2)} MB`;
export const thousands = (value: number): string =>
  Math.round(value).toLocaleString('en-US', { useGrouping: true });
export const times = (value: number): string =>
  value >= 10 ? `${value.toFixed(0)}×` : `${value.toFixed(1)}×`;

export type TableStyle = 'text' | 'markdown';

/** A table whose first column is a label (left-aligned) and the others figures (right-aligned). */
export const table = (style: TableStyle, header: string[], rows: string[][]): string => {
  if (style === 'markdown') {
    const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
    return [
      line(header),
      line(header.map((_, i) => (i === 0 ? '---' : '---:'))),
      ...rows.map(line),
    ].join('\n');
  }
  const widths = header.map((cell, i) =>
    Math.max(cell.length, ...rows.map((row) => (row[i] ?? '').length))
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
};
