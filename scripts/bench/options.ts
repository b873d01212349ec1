import { parseArgs } from 'node:util';

/** The parts of the benchmark that can be left out of a run (`--skip a,b`). */
export const PARTS = [
  'scenarios',
  'langgraph',
  'children',
  'senders',
  'task_growth',
  'fork',
  'conversations',
  'bundles',
  'tracing',
] as const;
export type Part = (typeof PARTS)[number];

export interface BenchOptions {
  /** K: turns per conversation of the cost scenarios. */
  turns: number;
  /** Measured runs per scenario (the median is reported). */
  runs: number;
  /** The side-by-side's conversation lengths (the 1-tool-call scenario). */
  shortTurns: number;
  longTurns: number;
  /** Children whose change is timed to their parent's resumption. */
  children: number;
  /** Concurrent senders to one task, and the messages each sends. */
  senders: number;
  messagesPerSender: number;
  /** New conversations opened by `clients` concurrent clients to time the rate. */
  conversations: number;
  /** Conversations opened first on the fresh stack, not timed: the JIT's warm-up. */
  warmUpConversations: number;
  clients: number;
  /** Conversations left parked in all (the rate's included), before memory is read. */
  parked: number;
  /** Fresh `node` processes per bundle whose import time is taken (the median). */
  importRuns: number;
  skip: ReadonlySet<Part>;
  markdown: boolean;
  json: string | undefined;
  /** Render a JSON file written by `--json` instead of measuring. */
  from: string | undefined;
  writeDocs: boolean;
  help: boolean;
}

export const DEFAULTS = {
  turns: 20,
  runs: 3,
  shortTurns: 50,
  longTurns: 400,
  children: 100,
  senders: 50,
  messagesPerSender: 8,
  conversations: 200,
  warmUpConversations: 400,
  clients: 8,
  parked: 1_000,
  importRuns: 3,
} as const;

/** Each numeric option: its flag, and the environment variable that may set it instead. */
const NUMERIC = {
  turns: ['turns', 'BENCH_TURNS'],
  runs: ['runs', 'BENCH_RUNS'],
  shortTurns: ['short-turns', 'BENCH_SHORT_TURNS'],
  longTurns: ['long-turns', 'BENCH_LONG_TURNS'],
  children: ['children', 'BENCH_CHILDREN'],
  senders: ['senders', 'BENCH_SENDERS'],
  messagesPerSender: ['messages-per-sender', 'BENCH_MESSAGES_PER_SENDER'],
  conversations: ['conversations', 'BENCH_CONVERSATIONS'],
  warmUpConversations: ['warm-up-conversations', 'BENCH_WARM_UP_CONVERSATIONS'],
  clients: ['clients', 'BENCH_CLIENTS'],
  parked: ['parked', 'BENCH_PARKED'],
  importRuns: ['import-runs', 'BENCH_IMPORT_RUNS'],
} as const satisfies Record<keyof typeof DEFAULTS, readonly [string, string]>;

export class BenchOptionError extends Error {
  override readonly name = 'BenchOptionError';
}

const positive = (raw: string | undefined, fallback: number, name: string, min: number) => {
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) {
    throw new BenchOptionError(`--${name} must be an integer of at least ${min}, not "${raw}"`);
  }
  return value;
};

/** The benchmark's options from its arguments (flags win over BENCH_* variables). */
export const parseBenchOptions = (
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>> = {}
): BenchOptions => {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(args);
  } catch (error) {
    throw new BenchOptionError((error as Error).message);
  }
  const { values } = parsed;
  const numbers = Object.fromEntries(
    Object.entries(NUMERIC).map(([key, [flag, variable]]) => {
      const raw = (values as Record<string, string | boolean | undefined>)[flag];
      const fallback = DEFAULTS[key as keyof typeof DEFAULTS];
      // Conversations of fewer than 2 turns have no tool-call turn; K = 2 is the least. A run
      // may time a cold stack: no warm-up.
      const min =
        key === 'turns' || key.endsWith('Turns') ? 2 : key === 'warmUpConversations' ? 0 : 1;
      return [key, positive(typeof raw === 'string' ? raw : env[variable], fallback, flag, min)];
    })
  ) as Record<keyof typeof DEFAULTS, number>;
  if (numbers.longTurns < numbers.shortTurns) {
    throw new BenchOptionError('--long-turns must be at least --short-turns');
  }
  // Every conversation opened stays parked: the warm-up's and the timed ones are among them.
  const opened = numbers.warmUpConversations + numbers.conversations;
  if (numbers.parked < opened) numbers.parked = opened;
  const skip = new Set<Part>();
  for (const name of (values.skip ?? '').split(',').map((part) => part.trim())) {
    if (name === '') continue;
    if (!(PARTS as readonly string[]).includes(name)) {
      throw new BenchOptionError(`--skip knows ${PARTS.join(', ')}; not "${name}"`);
    }
    skip.add(name as Part);
  }
  if (values['write-docs'] === true && values.from === undefined && skip.size > 0) {
    throw new BenchOptionError('--write-docs writes every table: run it without --skip');
  }
  return {
    ...numbers,
    skip,
    markdown: values.markdown === true,
    json: values.json,
    from: values.from,
    writeDocs: values['write-docs'] === true,
    help: values.help === true,
  };
};

const parse = (args: readonly string[]) =>
  parseArgs({
    args: [...args],
    strict: true,
    options: {
      ...Object.fromEntries(
        Object.values(NUMERIC).map(([flag]) => [flag, { type: 'string' as const }])
      ),
      skip: { type: 'string' },
      markdown: { type: 'boolean' },
      json: { type: 'string' },
      from: { type: 'string' },
      'write-docs': { type: 'boolean' },
      help: { type: 'boolean' },
    },
  });

/** What `npm run bench -- --help` prints (docs/benchmark.md says the same at more length). */
export const USAGE = `npm run bench -- [options]

  --turns K               turns per conversation of the cost scenarios (${DEFAULTS.turns})
  --runs N                measured runs per scenario, median reported (${DEFAULTS.runs})
  --short-turns N         side by side with LangGraph.js: the shorter conversation (${DEFAULTS.shortTurns})
  --long-turns N          ... and the longer one, also the growth figure's (${DEFAULTS.longTurns})
  --children N            children timed from their change to their parent's resumption (${DEFAULTS.children})
  --senders N             concurrent senders to one task (${DEFAULTS.senders})
  --messages-per-sender N messages each sender sends (${DEFAULTS.messagesPerSender})
  --conversations N       new conversations timed for the rate (${DEFAULTS.conversations})
  --warm-up-conversations N  opened first, not timed: the JIT's warm-up (${DEFAULTS.warmUpConversations})
  --clients N             concurrent clients opening them (${DEFAULTS.clients})
  --parked N              conversations parked in all before memory is read (${DEFAULTS.parked})
  --import-runs N         fresh node processes per bundle import, median reported (${DEFAULTS.importRuns})
  --skip a,b              leave parts out: ${PARTS.join(', ')}
  --markdown              print the tables as Markdown
  --json FILE             write every figure to FILE as JSON
  --from FILE             render FILE (written by --json) instead of measuring
  --write-docs            rewrite the marked blocks of docs/benchmark.md and README.md

Each number may also come from BENCH_<NAME> (BENCH_TURNS, BENCH_LONG_TURNS, BENCH_PARKED, ...).`;
