import { type StreamResponse, type Task, TaskState } from '@a2a-js/sdk';
import { describe, expect, it } from 'vitest';
import { taskView } from '../../../functions/cli/task-view.js';
import { USAGE_METADATA_KEY } from '../../../functions/core/a2a/identifiers.js';
import { sameView, type TaskSource, viewsOf } from '../../../functions/view/follow.js';

const usage = (modelCalls: number) => ({
  model_calls: modelCalls,
  input_tokens: 100 * modelCalls,
  cached_input_tokens: 0,
  output_tokens: 10 * modelCalls,
  cost_usd: 0,
});

const taskAt = (timestamp: string, state: TaskState, modelCalls: number): Task => ({
  id: 't-1',
  contextId: 'c-1',
  status: { state, message: undefined, timestamp },
  artifacts: [],
  history: [],
  metadata: { [USAGE_METADATA_KEY]: usage(modelCalls) },
});

/** A stream the test feeds one event at a time and ends when it is done. */
const feed = () => {
  const waiting: ((result: IteratorResult<StreamResponse>) => void)[] = [];
  const queued: IteratorResult<StreamResponse>[] = [];
  const put = (result: IteratorResult<StreamResponse>) => {
    const take = waiting.shift();
    if (take) take(result);
    else queued.push(result);
  };
  const stream: AsyncIterable<StreamResponse> = {
    [Symbol.asyncIterator]: () => ({
      next: () => {
        const result = queued.shift();
        return result
          ? Promise.resolve(result)
          : new Promise<IteratorResult<StreamResponse>>((take) => waiting.push(take));
      },
    }),
  };
  return {
    stream,
    send: (value: StreamResponse) => put({ done: false, value }),
    end: () => put({ done: true, value: undefined }),
  };
};

const statusUpdate = (timestamp: string, state: TaskState): StreamResponse => ({
  payload: {
    $case: 'statusUpdate',
    value: {
      taskId: 't-1',
      contextId: 'c-1',
      status: { state, message: undefined, timestamp },
      metadata: {},
    },
  },
});

describe('following a task', () => {
  it('counts a change of spend alone as a change of view', () => {
    const before = taskView(taskAt('2026-01-01T00:00:00.000Z', TaskState.TASK_STATE_WORKING, 1));
    const after = taskView(taskAt('2026-01-01T00:00:01.000Z', TaskState.TASK_STATE_WORKING, 2));
    expect(sameView(before, after)).toBe(false);
    expect(sameView(before, { ...before, updated_at: after.updated_at })).toBe(true);
  });

  it('shows a status update as it comes, then the spend it carried once the stream is quiet', async () => {
    let stored = taskAt('2026-01-01T00:00:00.000Z', TaskState.TASK_STATE_WORKING, 1);
    let reads = 0;
    const source: TaskSource = {
      client: {
        getTask: async () => {
          reads++;
          return stored;
        },
        resubscribeTask: () => {
          throw new Error('not followed here');
        },
      },
      view: taskView,
    };
    const { stream, send, end } = feed();
    const views = viewsOf(source, stream, taskView(stored));

    // The turn's model call is committed, then its status update arrives: the update alone does
    // not carry the spend, so the view shows the new state with the spend it had.
    stored = taskAt('2026-01-01T00:00:02.000Z', TaskState.TASK_STATE_INPUT_REQUIRED, 2);
    send(statusUpdate('2026-01-01T00:00:02.000Z', TaskState.TASK_STATE_INPUT_REQUIRED));
    const shown = await views.next();
    expect(shown.done).toBe(false);
    expect(shown.value).toMatchObject({ state: 'TASK_STATE_INPUT_REQUIRED' });
    expect(shown.value?.usage?.model_calls).toBe(1);
    expect(reads).toBe(0);

    // Nothing else comes: the task is read and its spend shown.
    const read = await views.next();
    expect(read.value?.usage?.model_calls).toBe(2);
    expect(reads).toBe(1);

    end();
    const last = await views.next();
    expect(last.done).toBe(true);
  });
});
