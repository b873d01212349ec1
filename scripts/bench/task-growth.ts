import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { taskKey } from '../../functions/adapters/dynamodb/item-codec.js';
import { EMPTY_USAGE } from '../../functions/core/loop/usage.js';
import type { TaskRecord } from '../../functions/core/ports/task-store.js';
import { readExtension, withExtension } from '../../functions/core/task/a2a-task.js';
import type { Step, SubTaskRow } from '../../functions/core/task/extension.schema.js';
import type { LocalStack } from '../../functions/local/local-stack.js';
import { type Item, itemBytes } from './billed-units.js';
import type { BenchFigures } from './figures.js';
import { sendMessage, userMessage } from './local-client.js';
import type { DynamoDbMeter } from './meter.js';
import { AnswerEveryCall, type SwitchModel } from './models.js';
import { median } from './stats.js';

/** The task sizes measured: sub-task rows and plan steps. */
export const GROWTH_SIZES = [
  { subTasks: 0, planSteps: 0 },
  { subTasks: 100, planSteps: 0 },
  { subTasks: 1_000, planSteps: 0 },
  { subTasks: 0, planSteps: 200 },
] as const;

/** Chat turns measured per size (after one that is not): enough for a median on a noisy host. */
const TURNS = 10;

/** Rows of children that ended: the turn reads them, nothing follows them. */
const rows = (count: number, taskId: string): SubTaskRow[] =>
  Array.from({ length: count }, (_, index) => ({
    task_id: `${taskId}-child-${index + 1}`,
    agent: null,
    state: 'TASK_STATE_COMPLETED',
    sub_state: null,
    criteria: null,
  }));

const steps = (count: number): Step[] =>
  Array.from({ length: count }, (_, index) => ({
    id: `step-${index + 1}`,
    name: `Step ${index + 1}`,
    description: `Do part ${index + 1} of the work and write down what was found`,
    depends_on: index === 0 ? [] : [`step-${index}`],
    output: null,
    linked_tasks: [],
    state: 'pending',
  }));

type GrowthFigures = NonNullable<BenchFigures['task_growth']>;

/**
 * One chat turn's DynamoDB writes on a task of each size: a conversation is started, its record
 * given the sub-task rows and the plan steps directly (as many `spawn_subtask` and a long
 * `create_plan` would leave it), then it takes one turn that is not counted and `TURNS` that are
 * (their time is the median of the turns).
 * The record's size is read after them.
 */
export const taskGrowthFigures = async (
  stack: LocalStack,
  model: SwitchModel,
  meter: DynamoDbMeter,
  progress: (message: string) => void
): Promise<GrowthFigures> => {
  model.current = new AnswerEveryCall();
  const { store } = stack.runtime.loop;
  const client = stack.runtime.dynamodb;
  if (client === undefined) throw new Error('the local stack shares no table client');
  const measured: GrowthFigures['rows'] = [];
  for (const size of GROWTH_SIZES) {
    const task = await sendMessage(stack.url, userMessage('a task that grows'), {
      returnImmediately: false,
      historyLength: 0,
    });
    const base = (await store.get(task.id)) as TaskRecord;
    const extension = readExtension(base.task);
    // Each child as its parent knows it once it has changed once: its row carries the usage its
    // change reported (the usage tree is summed from these, not read child by child).
    const subTasks = rows(size.subTasks, task.id).map((row) => ({
      ...row,
      usage: { usage: EMPTY_USAGE, unknown: [] },
    }));
    await store.commit({
      kind: 'update',
      base,
      record: {
        ...base,
        task: withExtension(base.task, {
          ...extension,
          sub_tasks: subTasks,
          plan:
            size.planSteps === 0
              ? null
              : { steps: steps(size.planSteps), revision: 1, revisions: [] },
        }),
      },
    });
    const say = (text: string) =>
      sendMessage(stack.url, userMessage(text, task.id), {
        returnImmediately: false,
        historyLength: 0,
      });
    await say('warm up');
    meter.reset();
    meter.counting = true;
    const ms: number[] = [];
    for (let turn = 1; turn <= TURNS; turn++) {
      const started = performance.now();
      await say(`turn ${turn}`);
      ms.push(performance.now() - started);
    }
    meter.counting = false;
    const { Item: item } = await client.send(
      new GetItemCommand({
        TableName: stack.runtime.config.TINY_HARNESS_TABLE,
        Key: taskKey(task.id),
      })
    );
    measured.push({
      sub_tasks: size.subTasks,
      plan_steps: size.planSteps,
      items_per_turn: meter.writeRequests / TURNS,
      wru_per_turn: meter.writeUnits / TURNS,
      wru_billed_per_turn: meter.billedWriteUnits / TURNS,
      ms_per_turn: median(ms),
      record_bytes: itemBytes((item ?? {}) as unknown as Item),
    });
    progress(`task growth: ${size.subTasks} sub-tasks, ${size.planSteps} plan steps: done`);
  }
  return { turns: TURNS, rows: measured };
};
