import { SORT_KEY, SORT_KEY_VALUE } from '../../functions/adapters/dynamodb/table.js';
import type { LocalStack } from '../../functions/local/local-stack.js';
import type { BenchFigures } from './figures.js';
import { callJsonRpc, sendMessage, userMessage, waitParked } from './local-client.js';
import { type DynamoDbMeter, itemsOf, READ_COMMANDS, WRITE_COMMANDS } from './meter.js';
import { AnswerEveryCall, type SwitchModel } from './models.js';
import { median } from './stats.js';

/** Whether a write's input is a commit that creates a task (its record put where none is). */
const createsTask = (input: unknown): boolean =>
  ((input as { TransactItems?: unknown[] }).TransactItems ?? []).some((action) => {
    const put = (
      action as { Put?: { Item?: Record<string, { S?: string }>; ConditionExpression?: string } }
    ).Put;
    return (
      put?.Item?.[SORT_KEY]?.S === SORT_KEY_VALUE.task &&
      (put.ConditionExpression ?? '').includes('attribute_not_exists')
    );
  });

/** ForkTask at the task's last point, over JSON-RPC: the fork's id. */
const fork = async (url: string, taskId: string): Promise<string> =>
  (
    (await callJsonRpc(url, 'tiny-harness/ForkTask', { id: taskId, historyLength: 0 })) as {
      id: string;
    }
  ).id;

type ForkFigures = NonNullable<BenchFigures['fork']>;

/**
 * What a fork costs at the end of a conversation of each length: the ForkTask call's time and the
 * DynamoDB requests and items it made (reading the original's transcript, log and records;
 * writing the fork, its copied transcript and the original's note), the median of `runs` forks
 * each. The fork's first step, which parks it, runs after the answer and is left out: each fork
 * is waited for until it has parked before the next is timed.
 */
export const forkFigures = async (
  stack: LocalStack,
  model: SwitchModel,
  meter: DynamoDbMeter,
  options: { lengths: readonly number[]; runs: number },
  progress: (message: string) => void
): Promise<ForkFigures> => {
  model.current = new AnswerEveryCall();
  const rows: ForkFigures['rows'] = [];
  for (const turns of options.lengths) {
    const first = await sendMessage(stack.url, userMessage('message 1'), {
      returnImmediately: false,
      historyLength: 0,
    });
    for (let turn = 2; turn <= turns; turn++) {
      await sendMessage(stack.url, userMessage(`message ${turn}`, first.id), {
        returnImmediately: false,
        historyLength: 0,
      });
    }
    const runs: Array<{ ms: number; reads: number; writes: number }> = [];
    for (let run = 0; run < options.runs; run++) {
      let reads = 0;
      let writes = 0;
      // The fork's own writes end with the commit that creates it; its first execution, which
      // starts as the call returns, may write before the answer arrives and is not counted.
      let created = false;
      const stop = meter.listen((observation) => {
        if (created) return;
        if (READ_COMMANDS.has(observation.command)) reads += 1;
        if (WRITE_COMMANDS.has(observation.command)) writes += itemsOf(observation.input);
        created = createsTask(observation.input);
      });
      const started = performance.now();
      const forkId = await fork(stack.url, first.id);
      const ms = performance.now() - started;
      stop();
      runs.push({ ms, reads, writes });
      await waitParked(stack, forkId, 1);
    }
    rows.push({
      turns,
      runs: options.runs,
      ms: median(runs.map((run) => run.ms)),
      ddb_reads: median(runs.map((run) => run.reads)),
      ddb_items_written: median(runs.map((run) => run.writes)),
    });
    progress(`fork of a ${turns}-turn task: done`);
  }
  return { rows };
};
