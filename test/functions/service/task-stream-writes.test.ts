import { type Task, TaskState } from '@a2a-js/sdk';
import { describe, expect, it } from 'vitest';
import type { LoggedEvent } from '../../../functions/core/ports/event-log.js';
import { TaskSignals } from '../../../functions/local/step-signals.js';
import { followTask, type StreamItem } from '../../../functions/service/task-stream.js';

const snapshot = {
  kind: 'task',
  id: 'task-1',
  contextId: 'context-1',
  status: { state: TaskState.TASK_STATE_WORKING },
} as unknown as Task;

const completed = (seq: number): LoggedEvent => ({
  seq,
  event: {
    kind: 'status_update',
    statusUpdate: {
      taskId: 'task-1',
      contextId: 'context-1',
      status: { state: TaskState.TASK_STATE_COMPLETED },
    } as never,
  },
});

describe('a stream that watches its task’s writes', () => {
  it('reads the log again when the task is written, not at its poll interval, and ends its watch with the stream', async () => {
    const logged: LoggedEvent[] = [];
    const signals = new TaskSignals();
    const stream = followTask({
      taskId: 'task-1',
      snapshot,
      replayAfter: 0,
      endAfter: 0,
      end: { kind: 'next-pause' },
      events: { read: async (_taskId, after = 0) => logged.filter((each) => each.seq > after) },
      readRecord: async () => undefined,
      // A poll this slow would outlast the test: only the write's signal can bring the event.
      timing: { pollIntervalMs: 600_000, keepAliveMs: 600_000, maxDurationMs: 3_600_000 },
      watchWrites: (taskId) => signals.watch(taskId),
    });
    const items: StreamItem[] = [];
    const reading = (async () => {
      for await (const item of stream) items.push(item);
    })();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(items.map((item) => item.kind === 'event' && item.event.kind)).toEqual(['task']);
    expect(signals.watchedTasks).toBe(1);

    logged.push(completed(1));
    signals.signal('task-2');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(items).toHaveLength(1);
    signals.signal('task-1');
    const polled = new Promise((_, reject) => {
      setTimeout(() => reject(new Error('the event waited for the poll')), 5_000).unref();
    });
    await Promise.race([reading, polled]);

    expect(items.map((item) => item.kind === 'event' && item.event.kind)).toEqual([
      'task',
      'status_update',
    ]);
    expect(signals.watchedTasks).toBe(0);
  });
});
