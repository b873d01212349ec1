import type { LocalStack } from '../../functions/local/local-stack.js';
import type { BenchFigures } from './figures.js';
import {
  executionsOf,
  historyOf,
  sendMessage,
  sleep,
  userMessage,
  waitParked,
} from './local-client.js';
import { type DynamoDbMeter, WRITE_COMMANDS } from './meter.js';
import { ChildPairModel, type SwitchModel } from './models.js';
import { percentile } from './stats.js';

export interface ChildTiming {
  /** The child's completing commit → the parent's Park state returning (its execution resumed). */
  resumedMs: number;
  /** The child's completing commit → the parent's next model call. */
  modelMs: number;
}

/** The first write to the child's partition that sets its state COMPLETED (Date.now()). */
const completionWatch = (meter: DynamoDbMeter, childId: string) => {
  let at: number | undefined;
  const partition = `"TASK#${childId}"`;
  const stop = meter.listen((observation, time) => {
    if (at !== undefined || observation.error !== undefined) return;
    if (!WRITE_COMMANDS.has(observation.command)) return;
    const input = JSON.stringify(observation.input);
    if (input.includes(partition) && input.includes('TASK_STATE_COMPLETED')) at = time;
  });
  return { at: () => at, stop };
};

/**
 * When the parent's execution left Park after `after` (Date.now()): the first TaskSucceeded of
 * a task-token state, or a new execution's start (a parent whose execution had ended).
 */
const resumedAfter = async (
  stack: LocalStack,
  parentId: string,
  after: number
): Promise<number | undefined> => {
  const times = (await executionsOf(stack, parentId))
    .flatMap((execution) => historyOf(stack, execution.executionArn ?? ''))
    .filter((event) => event.type === 'TaskSucceeded' || event.type === 'ExecutionStarted')
    .map((event) => event.timestamp?.getTime() ?? 0)
    .filter((time) => time >= after)
    .sort((a, b) => a - b);
  return times[0];
};

/**
 * Parent–child pairs, one after another: the parent spawns a sub-task and parks; only then is the
 * child allowed to answer, which completes it; its change reaches the parent through the table's
 * stream (the stream function, the parent's inbox, the wake). Measures that path.
 */
export const childToParent = async (
  stack: LocalStack,
  model: SwitchModel,
  meter: DynamoDbMeter,
  children: number,
  onProgress: (done: number) => void = () => undefined
): Promise<ChildTiming[]> => {
  const pairs = new ChildPairModel();
  model.current = pairs;
  const timings: ChildTiming[] = [];
  for (let n = 0; n < children; n++) {
    const parent = await sendMessage(stack.url, userMessage(`delegate job ${n + 1}`));
    await waitParked(stack, parent.id, 1);
    const childId = await pairs.heldChild(60_000);
    const watch = completionWatch(meter, childId);
    pairs.release(childId);
    const deadline = Date.now() + 60_000;
    while (pairs.doneAt.get(parent.id) === undefined) {
      if (Date.now() > deadline) throw new Error(`parent ${parent.id} was not resumed`);
      await sleep(2);
    }
    watch.stop();
    const committed = watch.at();
    if (committed === undefined) throw new Error(`child ${childId} completed unseen`);
    const resumed = await resumedAfter(stack, parent.id, committed);
    if (resumed === undefined) throw new Error(`parent ${parent.id} resumed unseen`);
    timings.push({
      resumedMs: resumed - committed,
      modelMs: (pairs.doneAt.get(parent.id) ?? committed) - committed,
    });
    // The parent's last turn parks it again: let it, so the next pair starts on a quiet stack.
    await waitParked(stack, parent.id, 2);
    onProgress(n + 1);
  }
  return timings;
};

/** The child-to-parent figures of `children` pairs. */
export const childToParentFigures = async (
  stack: LocalStack,
  model: SwitchModel,
  meter: DynamoDbMeter,
  children: number,
  progress: (message: string) => void
): Promise<NonNullable<BenchFigures['child_to_parent_ms']>> => {
  const timings = await childToParent(stack, model, meter, children, (done) => {
    if (done % 25 === 0 && done < children) progress(`child → parent: ${done} of ${children}`);
  });
  const resumed = timings.map((timing) => timing.resumedMs);
  const models = timings.map((timing) => timing.modelMs);
  progress('child → parent: done');
  return {
    children: timings.length,
    p50: percentile(resumed, 50),
    p95: percentile(resumed, 95),
    max: Math.max(0, ...resumed),
    next_model_call_p50: percentile(models, 50),
    next_model_call_p95: percentile(models, 95),
  };
};
