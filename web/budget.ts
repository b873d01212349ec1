/**
 * The first-load budget (issue 14): the JavaScript a browser fetches before the page can show a
 * task, gzipped, is measured on every build and printed; over the budget the build fails. First
 * load is the entry chunk and every chunk it imports statically; a chunk loaded on demand (the
 * plan's graph layout) is listed apart and not counted.
 */
import { gzipSync } from 'node:zlib';
import type { Plugin } from 'vite';

export const FIRST_LOAD_BUDGET_BYTES = 200_000;

interface ChunkLike {
  type: 'chunk';
  fileName: string;
  code: string;
  isEntry: boolean;
  imports: string[];
  dynamicImports: string[];
}

export interface BudgetReport {
  firstLoad: Array<{ file: string; bytes: number; gzip: number }>;
  onDemand: Array<{ file: string; bytes: number; gzip: number }>;
  firstLoadGzip: number;
}

const kb = (bytes: number) => `${(bytes / 1000).toFixed(1)} kB`;

export const measure = (chunks: ChunkLike[]): BudgetReport => {
  const byName = new Map(chunks.map((chunk) => [chunk.fileName, chunk]));
  const first = new Set<string>();
  const visit = (name: string) => {
    if (first.has(name)) return;
    first.add(name);
    for (const imported of byName.get(name)?.imports ?? []) visit(imported);
  };
  for (const chunk of chunks) if (chunk.isEntry) visit(chunk.fileName);
  const sized = (chunk: ChunkLike) => ({
    file: chunk.fileName,
    bytes: Buffer.byteLength(chunk.code),
    gzip: gzipSync(chunk.code, { level: 9 }).length,
  });
  const firstLoad = chunks.filter((chunk) => first.has(chunk.fileName)).map(sized);
  const onDemand = chunks.filter((chunk) => !first.has(chunk.fileName)).map(sized);
  return {
    firstLoad,
    onDemand,
    firstLoadGzip: firstLoad.reduce((sum, chunk) => sum + chunk.gzip, 0),
  };
};

export const formatReport = (report: BudgetReport, budget = FIRST_LOAD_BUDGET_BYTES) =>
  [
    `first load: ${kb(report.firstLoadGzip)} of JavaScript gzipped (budget ${kb(budget)})`,
    ...report.firstLoad.map(
      (chunk) => `  ${chunk.file}  ${kb(chunk.bytes)} → ${kb(chunk.gzip)} gzipped`
    ),
    ...(report.onDemand.length === 0 ? [] : ['loaded on demand (not in the first load):']),
    ...report.onDemand.map(
      (chunk) => `  ${chunk.file}  ${kb(chunk.bytes)} → ${kb(chunk.gzip)} gzipped`
    ),
  ].join('\n');

/** Prints the report after the bundle is written, and fails the build over the budget. */
export const firstLoadBudget = (budget = FIRST_LOAD_BUDGET_BYTES): Plugin => ({
  name: 'tiny-harness:first-load-budget',
  apply: 'build',
  writeBundle(_options, bundle) {
    const chunks = Object.values(bundle).filter(
      (item): item is typeof item & ChunkLike => item.type === 'chunk'
    ) as unknown as ChunkLike[];
    const report = measure(chunks);
    // Printed whatever the log level: the figure is the point of the build's report.
    console.log(formatReport(report, budget));
    if (report.firstLoadGzip > budget) {
      this.error(
        `the first load is ${kb(report.firstLoadGzip)} of JavaScript gzipped, over the ${kb(budget)} budget`
      );
    }
  },
});
