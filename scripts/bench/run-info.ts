import { execFileSync } from 'node:child_process';
import { cpus, loadavg, platform, release, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { BenchFigures } from './figures.js';
import type { BenchOptions } from './options.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

const commitOf = (): string => {
  try {
    return execFileSync('git', ['describe', '--always', '--dirty'], {
      cwd: ROOT,
      encoding: 'utf8',
    }).trim();
  } catch {
    return 'unknown';
  }
};

const machine = () => {
  const cpu = cpus();
  return `${cpu.length} × ${cpu[0]?.model.trim() ?? 'unknown CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB, ${platform()} ${release()}`;
};

/** What was measured where, and how loaded the machine was: the run's first line. */
export const runInfo = (
  options: BenchOptions,
  startedAt: Date,
  loadBefore: number[]
): BenchFigures['run'] => ({
  started_at: startedAt.toISOString(),
  commit: commitOf(),
  seconds: (Date.now() - startedAt.getTime()) / 1000,
  node: `node ${process.version}`,
  machine: machine(),
  load_before: loadBefore,
  load_after: loadavg(),
  options: {
    turns: options.turns,
    runs: options.runs,
    'short-turns': options.shortTurns,
    'long-turns': options.longTurns,
    children: options.children,
    senders: options.senders,
    'messages-per-sender': options.messagesPerSender,
    conversations: options.conversations,
    clients: options.clients,
    parked: options.parked,
    'import-runs': options.importRuns,
    skip: [...options.skip],
  },
});
