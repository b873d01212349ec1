import { TaskArtifactUpdateEvent, TaskState, TaskStatusUpdateEvent } from '@a2a-js/sdk';
import { describe, expect, it } from 'vitest';
import type { LoggedEvent } from '../../../functions/core/ports/event-log.js';
import { taskAtPoint } from '../../../functions/core/task/task-at.js';
import { makeTask } from '../../conformance/fixtures.js';

const status = (state: string, note: string) =>
  TaskStatusUpdateEvent.fromJSON({
    taskId: 't',
    contextId: 'ctx',
    status: { state, timestamp: '2026-01-01T00:00:01.000Z' },
    metadata: { note },
  });

const artifact = (text: string, append: boolean) =>
  TaskArtifactUpdateEvent.fromJSON({
    taskId: 't',
    contextId: 'ctx',
    artifact: { artifactId: 'answer', name: 'answer', parts: [{ text }] },
    append,
    lastChunk: true,
  });

const LOG: LoggedEvent[] = [
  { seq: 1, historySeq: 0, event: { kind: 'task', task: makeTask('t') } },
  {
    seq: 2,
    historySeq: 2,
    event: { kind: 'status_update', statusUpdate: status('TASK_STATE_WORKING', 'two') },
  },
  {
    seq: 3,
    historySeq: 4,
    event: { kind: 'artifact_update', artifactUpdate: artifact('x', false) },
  },
  {
    seq: 4,
    historySeq: 4,
    event: { kind: 'artifact_update', artifactUpdate: artifact('y', true) },
  },
  {
    seq: 5,
    historySeq: 6,
    event: { kind: 'status_update', statusUpdate: status('TASK_STATE_COMPLETED', 'six') },
  },
];

describe('the task as its log says it was at a point', () => {
  it('folds every event logged before the transcript went past the point', () => {
    expect(taskAtPoint(LOG, 0)?.status?.state).toBe(TaskState.TASK_STATE_SUBMITTED);
    const at3 = taskAtPoint(LOG, 3);
    expect(at3?.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    // A status update's metadata is laid over the task's: the extension stays the Task event's.
    expect(at3?.metadata).toEqual({ ...makeTask('t').metadata, note: 'two' });
    const at4 = taskAtPoint(LOG, 4);
    const answer = at4?.artifacts.find((each) => each.artifactId === 'answer');
    expect(
      answer?.parts.map((part) => part.content?.$case === 'text' && part.content.value)
    ).toEqual(['x', 'y']);
    expect(taskAtPoint(LOG, 9)?.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it('counts events logged before marks as at the start, and has no task without a first Task', () => {
    const unmarked = LOG.map(({ historySeq: _mark, ...event }) => event);
    expect(taskAtPoint(unmarked, 0)?.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(taskAtPoint(LOG.slice(1), 9)).toBeUndefined();
  });
});
